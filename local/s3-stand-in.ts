import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Local mode's and the tests' S3: just enough of S3 for GetObject and PutObject, path-style (`GET /<bucket>/<key>`), for the S3
 * client pointed at it with `endpoint` + `forcePathStyle` (S3_ENDPOINT): the object's bytes, or S3's
 * own XML error for a missing key. Requests must be SigV4-signed, as the SDK signs them for AWS, in
 * the header or as a presigned URL's query, which is refused once its X-Amz-Expires has passed.
 */
export interface S3ObjectServer {
  endpoint: string;
  put(bucket: string, key: string, text: string): void;
  /** An object's text, as stored by a PutObject or `put`. */
  get(bucket: string, key: string): string | undefined;
  /** `GET /bucket/key` per request served, in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

/** On `port`, or a free one when 0 (tests). */
export async function startS3ObjectServer(port = 0): Promise<S3ObjectServer> {
  const objects = new Map<string, Buffer>();
  const requests: string[] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://s3.local');
    const path = decodeURIComponent(url.pathname);
    requests.push(`${request.method} ${path}`);
    const presigned = url.searchParams.get('X-Amz-Algorithm') === 'AWS4-HMAC-SHA256';
    if (!presigned && !String(request.headers.authorization).startsWith('AWS4-HMAC-SHA256 ')) {
      return xmlError(response, 403, 'AccessDenied', 'Unsigned request');
    }
    if (presigned && presignedExpired(url.searchParams)) {
      return xmlError(response, 403, 'AccessDenied', 'Request has expired');
    }
    if (request.method === 'PUT') {
      const parts: Buffer[] = [];
      request.on('data', (part: Buffer) => parts.push(part));
      request.on('end', () => {
        objects.set(path, Buffer.concat(parts));
        response.writeHead(200, { etag: '"put"' });
        response.end();
      });
      return;
    }
    if (request.method === 'DELETE') {
      objects.delete(path);
      response.writeHead(204);
      response.end();
      return;
    }
    if (request.method === 'HEAD') {
      const body = objects.get(path);
      response.writeHead(body ? 200 : 404, body ? objectHeaders(body) : {});
      response.end();
      return;
    }
    if (request.method !== 'GET') return xmlError(response, 405, 'MethodNotAllowed', 'Not an object call');
    if (url.searchParams.get('list-type') === '2')
      return listObjects(response, objects, path, url.searchParams);
    const body = objects.get(path);
    if (!body) return xmlError(response, 404, 'NoSuchKey', 'The specified key does not exist.');
    // `Range: bytes=N-`, the one form the history import sends (to start reading at a line).
    const from = /^bytes=(\d+)-$/.exec(String(request.headers.range ?? ''))?.[1];
    if (from !== undefined) {
      if (Number(from) >= body.length)
        return xmlError(response, 416, 'InvalidRange', 'The requested range is not satisfiable');
      const part = body.subarray(Number(from));
      response.writeHead(206, {
        ...objectHeaders(part),
        'content-range': `bytes ${from}-${body.length - 1}/${body.length}`,
      });
      response.end(part);
      return;
    }
    response.writeHead(200, objectHeaders(body));
    response.end(body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${bound}`,
    put: (bucket, key, text) => objects.set(`/${bucket}/${key}`, Buffer.from(text, 'utf8')),
    get: (bucket, key) => objects.get(`/${bucket}/${key}`)?.toString('utf8'),
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function objectHeaders(body: Buffer) {
  return {
    'content-type': 'application/x-ndjson',
    'content-length': body.length,
    etag: `"${body.length.toString(16)}"`,
    'last-modified': new Date(0).toUTCString(),
  };
}

/** `X-Amz-Date` (`20260101T000000Z`) plus `X-Amz-Expires` seconds is in the past. */
function presignedExpired(query: URLSearchParams): boolean {
  const signedAt = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(query.get('X-Amz-Date') ?? '');
  if (!signedAt) return true;
  const [, y, mo, d, h, mi, se] = signedAt.map(Number) as number[];
  const at = Date.UTC(y!, mo! - 1, d!, h!, mi!, se!);
  return at + Number(query.get('X-Amz-Expires') ?? 0) * 1000 < Date.now();
}

/** ListObjectsV2 of `/<bucket>` under `prefix`: every key in one page. */
function listObjects(
  response: ServerResponse,
  objects: ReadonlyMap<string, Buffer>,
  bucketPath: string,
  query: URLSearchParams,
): void {
  const bucket = bucketPath.replace(/^\/|\/$/g, '');
  const prefix = query.get('prefix') ?? '';
  const found = [...objects.entries()]
    .map(([path, body]) => ({ key: path.slice(bucket.length + 2), size: body.length, path }))
    .filter(({ path, key }) => path.startsWith(`/${bucket}/`) && key.startsWith(prefix));
  const contents = found.map(({ key, size }) => `<Contents><Key>${key}</Key><Size>${size}</Size></Contents>`);
  response.writeHead(200, { 'content-type': 'application/xml' });
  response.end(
    `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult><Name>${bucket}</Name><Prefix>${prefix}</Prefix><KeyCount>${found.length}</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>${contents.join('')}</ListBucketResult>`,
  );
}

function xmlError(response: ServerResponse, status: number, code: string, message: string): void {
  response.writeHead(status, { 'content-type': 'application/xml' });
  response.end(
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>local</RequestId></Error>`,
  );
}
