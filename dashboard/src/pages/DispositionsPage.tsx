import { useState } from 'preact/hooks';
import { DISPOSITION_CSV_COLUMNS } from '../../../shared/contract/disposition-csv.ts';
import { api, ConsoleApiError, type UploadResult } from '../api.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';

const COLUMNS = DISPOSITION_CSV_COLUMNS;
const EXAMPLE_ROW =
  'r-1001,SKU,SKU-123,OPEN_BOX,RESTOCK,DROPOFF,ORIGINAL_PAYMENT,WH-1,,https://img.example/1.jpg|https://img.example/2.jpg,Box opened';
const TEMPLATE_URL = `data:text/csv;charset=utf-8,${encodeURIComponent(`${COLUMNS.join(',')}\n${EXAMPLE_ROW}\n`)}`;

/** Bulk dispositions: a CSV checked as a whole; every bad row is listed and nothing is recorded. */
export function DispositionsPage() {
  const [file, setFile] = useState<File>();
  const [state, setState] = useState<'idle' | 'reading' | 'uploading'>('idle');
  const [result, setResult] = useState<UploadResult>();
  const [error, setError] = useState<unknown>();
  const upload = async (event: Event) => {
    event.preventDefault();
    if (!file) return;
    setResult(undefined);
    setError(undefined);
    try {
      setState('reading');
      const text = await file.text();
      setState('uploading');
      setResult(await api.uploadDispositions(text));
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
            setResult(undefined);
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
          {state === 'reading' ? 'Reading the file…' : `Checking and recording ${file?.name}…`}
        </p>
      ) : null}
      {result ? (
        <p class="success" role="status">
          Recorded {result.rows} rows for {result.returns} returns ({result.returnsChanged} changed
          {result.returnsChanged < result.returns ? '; the others were already recorded exactly so' : ''}).
        </p>
      ) : null}
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
                <td class="num">{d.line ?? ''}</td>
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
