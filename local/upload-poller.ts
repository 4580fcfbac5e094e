import { runUploadWorker } from '../shared/use-cases/record-upload.ts';
import { pollEvery } from './poll.ts';

/**
 * Local mode's upload worker: the same recording code as the AWS worker Lambda, fed by polling the
 * uploads still recording (locally no jobs' bus invokes a Lambda). One pass at a time.
 */
export function startUploadPoller(options: { intervalMs?: number; log?: (line: string) => void } = {}) {
  const log = options.log ?? console.log;
  return pollEvery(
    options.intervalMs ?? 1_000,
    async () => {
      for (const upload of await runUploadWorker()) {
        log(
          `dispositions upload ${upload.uploadId}: ${upload.status}, ${upload.returnsRecorded} recorded, ${upload.returnsAlreadyPresent} already present, ${upload.returnsFailed} failed of ${upload.returns} returns`,
        );
      }
    },
    (error) => log(`upload worker: ${error.message}`),
  );
}
