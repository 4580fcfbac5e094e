import { randomBytes } from 'node:crypto';
import { ScanCommand, type ScanCommandOutput } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { accountBody, signupBody } from './support/account-fixtures.ts';
import { type ApiResponse, newMerchant, startTestApi, type TestApi } from './support/api.ts';
import { uid } from './support/fixtures.ts';

// DEBUG for this file, before anything imports the logger: Powertools reads its level once and
// resets every invocation to it, so the level cannot be raised for just one request.
const previousLogLevel = vi.hoisted(() => {
  const previous = process.env.POWERTOOLS_LOG_LEVEL;
  process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';
  return previous;
});

let api: TestApi;
let key: string;

beforeAll(async () => {
  api = await startTestApi();
  key = (await newMerchant({ accountUpdatesEnabled: true })).apiKey;
});
afterAll(async () => {
  await api.close();
  process.env.POWERTOOLS_LOG_LEVEL = previousLogLevel;
});

const update = (body: unknown) => api.post('/v1/evaluate/account', body, { apiKey: key });

describe('literal credentials in account updates (docs/api.md)', () => {
  it('refuses a literal password in PASSWORD_CHANGE; it appears in no response, table item or log line', async () => {
    const password = `Tr0ub4dor&3-${randomBytes(6).toString('hex')}`;
    const previous = `Spring2024!-${randomBytes(6).toString('hex')}`;
    const customer = signupBody();
    await api.post('/v1/evaluate/signup', customer, { apiKey: key });
    const base = {
      providerCustomerId: customer.customerId,
      device: customer.deviceFingerprints[0]!.deviceIdentifier,
      changeType: 'PASSWORD_CHANGE',
    };

    const { output, result: responses } = await capturingOutput(async () => [
      await update(accountBody({ ...base, newValue: password })),
      await update(accountBody({ ...base, previousValue: previous, newValue: 'redacted' })),
      // A valid request in the same capture shows that logger output is being seen.
      await update(accountBody({ ...base, newValue: 'redacted' })),
    ]);

    const [refusedNew, refusedPrevious, accepted] = responses as [ApiResponse, ApiResponse, ApiResponse];
    expect(refusedNew.status).toBe(422);
    expect(refusedNew.body).toEqual({
      error: {
        code: 'unprocessable_entity',
        message:
          'newValue must be "redacted" or a hash (hex or base64 of at least 32 bytes) for PASSWORD_CHANGE.',
        field: 'newValue',
        requestId: refusedNew.headers.get('x-request-id'),
      },
    });
    expect(refusedPrevious.status).toBe(422);
    expect(refusedPrevious.body.error).toMatchObject({
      code: 'unprocessable_entity',
      field: 'previousValue',
    });
    expect(accepted.status).toBe(200);
    for (const response of responses) {
      expect(response.text).not.toContain(password);
      expect(response.text).not.toContain(previous);
    }

    expect(output).toContain('account update evaluated');
    expect(output).not.toContain(password);
    expect(output).not.toContain(previous);

    const table = await scanWholeTable();
    expect(table).toContain(accepted.body.serviceAccountEventId);
    expect(table).not.toContain(password);
    expect(table).not.toContain(previous);
  });

  it('stores only whether a password value was given, and a digest for other changes', async () => {
    const hash = randomBytes(32).toString('hex');
    const newEmail = `${uid('new')}@example.com`;
    const passwordChange = await update(accountBody({ changeType: 'PASSWORD_CHANGE', newValue: hash }));
    const emailChange = await update(accountBody({ changeType: 'EMAIL_CHANGE', newValue: newEmail }));
    expect(passwordChange.status).toBe(200);
    expect(emailChange.status).toBe(200);
    const table = await scanWholeTable();
    expect(table).toContain(passwordChange.body.serviceAccountEventId);
    expect(table).not.toContain(hash);
    expect(table).toContain(emailChange.body.serviceAccountEventId);
    expect(table).not.toContain(newEmail);
  });
});

/** Runs `work` with everything written to stdout and stderr captured (and kept off the test output). */
async function capturingOutput<T>(work: () => Promise<T>): Promise<{ output: string; result: T }> {
  const chunks: string[] = [];
  const original = { out: process.stdout.write, err: process.stderr.write };
  const sink = (chunk: unknown, ...rest: unknown[]): boolean => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    const callback = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    callback?.();
    return true;
  };
  process.stdout.write = sink as typeof process.stdout.write;
  process.stderr.write = sink as typeof process.stderr.write;
  try {
    const result = await work();
    return { output: chunks.join(''), result };
  } finally {
    process.stdout.write = original.out;
    process.stderr.write = original.err;
  }
}

/** Every item of the table, raw, as one string (DynamoDB Local lives for one test run). */
async function scanWholeTable(): Promise<string> {
  const { dynamoDbClient, tableName } = await import('../shared/store/client.ts');
  const pages: string[] = [];
  let start: ScanCommandOutput['LastEvaluatedKey'];
  do {
    const page = await dynamoDbClient.send(
      new ScanCommand({ TableName: tableName, ExclusiveStartKey: start, ConsistentRead: true }),
    );
    pages.push(
      JSON.stringify(page.Items ?? [], (_key, value) =>
        value instanceof Uint8Array ? Buffer.from(value).toString('utf8') : value,
      ),
    );
    start = page.LastEvaluatedKey;
  } while (start);
  return pages.join('\n');
}
