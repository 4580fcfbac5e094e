import { runUploadWorker } from '../shared/use-cases/record-upload.ts';

/**
 * Local mode's upload worker: the same recording code as the AWS worker Lambda, fed by polling the
 * uploads still recording (DynamoDB Local has no Lambda to stream to). One pass at a time.
 */
export function startUploadPoller(options: { intervalMs?: number; log?: (line: string) => void } = {}) {
  const intervalMs = options.intervalMs ?? 1_000;
  const log = options.log ?? console.log;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const pass = async () => {
    try {
      for (const upload of await runUploadWorker()) {
        log(
          `dispositions upload ${upload.uploadId}: ${upload.status}, ${upload.returnsRecorded} recorded, ${upload.returnsAlreadyPresent} already present, ${upload.returnsFailed} failed of ${upload.returns} returns`,
        );
      }
    } catch (error) {
      log(`upload worker: ${(error as Error).message}`);
    }
    if (!stopped) timer = setTimeout(pass, intervalMs);
  };
  timer = setTimeout(pass, intervalMs);
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
