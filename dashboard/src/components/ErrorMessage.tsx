import { ConsoleApiError } from '../api.ts';

/** An error in words, with the request id to quote to support. */
export function ErrorMessage({ error, action }: { error: unknown; action: string }) {
  if (!error) return null;
  const apiError = error instanceof ConsoleApiError ? error : undefined;
  return (
    <div class="error" role="alert">
      <strong>{action} failed:</strong> {error instanceof Error ? error.message : String(error)}
      {apiError?.requestId ? <span class="request-id"> (request id {apiError.requestId})</span> : null}
    </div>
  );
}
