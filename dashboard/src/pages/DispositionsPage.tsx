import { useState } from 'preact/hooks';
import { DISPOSITION_CSV_COLUMNS } from '../../../shared/contract/disposition-csv.ts';
import { api, ConsoleApiError, type UploadStatus } from '../api.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { usePolledJob } from '../components/usePolledJob.ts';
import { format } from '../format.ts';
import { navigate, type Route, withQuery } from '../router.ts';

const COLUMNS = DISPOSITION_CSV_COLUMNS;
const EXAMPLE_ROW =
  'r-1001,SKU,SKU-123,OPEN_BOX,RESTOCK,DROPOFF,ORIGINAL_PAYMENT,WH-1,,https://img.example/1.jpg|https://img.example/2.jpg,Box opened';
const TEMPLATE_URL = `data:text/csv;charset=utf-8,${encodeURIComponent(`${COLUMNS.join(',')}\n${EXAMPLE_ROW}\n`)}`;
/** How often a recording job's progress is read. */
const POLL_MS = 1_000;

/**
 * Bulk dispositions: a CSV checked as a whole (every bad row listed, nothing recorded), then
 * recorded by a job whose progress the page follows. The job's id is in the URL (`?upload=`), so a
 * reload or a bookmark shows the same job.
 */
export function DispositionsPage({ route }: { route: Route }) {
  const uploadId = route.query.get('upload') ?? undefined;
  const [file, setFile] = useState<File>();
  const [state, setState] = useState<'idle' | 'reading' | 'checking'>('idle');
  const [error, setError] = useState<unknown>();
  const job = usePolledJob(uploadId, api.upload, (status) => status.status === 'recording', POLL_MS);
  const upload = async (event: Event) => {
    event.preventDefault();
    if (!file) return;
    setError(undefined);
    navigate(withQuery(route, { upload: undefined }), { replace: true });
    try {
      setState('reading');
      const text = await file.text();
      setState('checking');
      const accepted = await api.uploadDispositions(text);
      navigate(withQuery(route, { upload: accepted.uploadId }));
    } catch (e) {
      setError(e);
    } finally {
      setState('idle');
    }
  };
  const rowErrors = error instanceof ConsoleApiError ? error.details : [];
  return (
    <div>
      <p>
        One row per returned item, the columns of the disposition endpoint; <code>images</code> separated by{' '}
        <code>|</code>. Up to 5 MB.{' '}
        <a href={TEMPLATE_URL} download="dispositions-template.csv">
          Download the template
        </a>
      </p>
      <form class="upload" onSubmit={upload}>
        <label for="csv-file">CSV file</label>
        <input
          id="csv-file"
          type="file"
          accept=".csv,text/csv"
          onChange={(e) => {
            setFile(e.currentTarget.files?.[0]);
            setError(undefined);
          }}
        />
        <button type="submit" disabled={!file || state !== 'idle'}>
          Upload
        </button>
      </form>
      {state !== 'idle' ? (
        <p aria-live="polite">
          <progress aria-label="Upload progress" />{' '}
          {state === 'reading' ? 'Reading the file…' : `Checking every row of ${file?.name}…`}
        </p>
      ) : null}
      {job.status ? <JobProgress job={job.status} /> : null}
      <ErrorMessage error={job.error} action="Reading the upload's progress" />
      <ErrorMessage error={error} action="The upload" />
      {rowErrors.length > 0 ? (
        <table class="row-errors">
          <caption>Rows to fix (nothing was recorded)</caption>
          <thead>
            <tr>
              <th scope="col">Line</th>
              <th scope="col">Column</th>
              <th scope="col">Code</th>
              <th scope="col">Problem</th>
            </tr>
          </thead>
          <tbody>
            {rowErrors.map((d, i) => (
              <tr key={i}>
                <td class="num">{d.line === undefined ? '' : format.number(d.line)}</td>
                <td>{d.column ?? ''}</td>
                <td>
                  <code>{d.code}</code>
                </td>
                <td>{d.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}

function JobProgress({ job }: { job: UploadStatus }) {
  const handled = job.returnsRecorded + job.returnsAlreadyPresent + job.returnsFailed;
  const counts = `${format.number(job.returnsRecorded)} newly recorded, ${format.number(job.returnsAlreadyPresent)} already recorded exactly so`;
  const totals = `${format.count(job.rows, 'row')} for ${format.count(job.returns, 'return')}`;
  if (job.status === 'recording') {
    return (
      <p aria-live="polite" class="notice">
        <progress aria-label="Recording progress" value={handled} max={job.returns} /> Recording {totals}:{' '}
        {format.number(handled)} of {format.number(job.returns)} done ({counts}).
      </p>
    );
  }
  if (job.status === 'done') {
    return (
      <p class="success" role="status">
        Recorded {totals}: {counts}.
      </p>
    );
  }
  return (
    <div class="error" role="alert">
      <p>
        <strong>The recording stopped:</strong> {job.reason ?? 'unknown reason'} {format.number(handled)} of{' '}
        {format.count(job.returns, 'return')} handled ({counts}, {format.number(job.returnsFailed)} refused).
      </p>
      {job.failures.length > 0 ? (
        <table class="row-errors">
          <caption>Returns not recorded</caption>
          <thead>
            <tr>
              <th scope="col">Return</th>
              <th scope="col">Code</th>
              <th scope="col">Problem</th>
            </tr>
          </thead>
          <tbody>
            {job.failures.map((f) => (
              <tr key={f.returnId}>
                <td>{f.returnId}</td>
                <td>
                  <code>{f.code}</code>
                </td>
                <td>{f.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}
