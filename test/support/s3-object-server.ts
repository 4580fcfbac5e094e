import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Just enough of S3 for GetObject, path-style (`GET /<bucket>/<key>`), for the S3 client pointed at
 * it with `endpoint` + `forcePathStyle` (S3_ENDPOINT): the object's bytes, or S3's own XML error for
 * a missing key. Requests must be SigV4-signed, as the SDK signs them for AWS.
 */
export interface S3ObjectServer {
  endpoint: string;
  put(bucket: string, key: string, text: string): void;
  /** `GET /bucket/key` per request served, in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

export async function startS3ObjectServer(): Promise<S3ObjectServer> {
  const objects = new Map<string, Buffer>();
  const requests: string[] = [];
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://s3.local').pathname);
    requests.push(`${request.method} ${path}`);
    if (!String(request.headers.authorization).startsWith('AWS4-HMAC-SHA256 ')) {
      return xmlError(response, 403, 'AccessDenied', 'Unsigned request');
    }
    if (request.method !== 'GET') return xmlError(response, 405, 'MethodNotAllowed', 'Only GetObject');
    const body = objects.get(path);
    if (!body) return xmlError(response, 404, 'NoSuchKey', 'The specified key does not exist.');
    response.writeHead(200, {
      'content-type': 'application/x-ndjson',
      'content-length': body.length,
      etag: `"${body.length.toString(16)}"`,
      'last-modified': new Date(0).toUTCString(),
    });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    put: (bucket, key, text) => objects.set(`/${bucket}/${key}`, Buffer.from(text, 'utf8')),
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function xmlError(response: ServerResponse, status: number, code: string, message: string): void {
  response.writeHead(status, { 'content-type': 'application/xml' });
  response.end(
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>local</RequestId></Error>`,
  );
}
