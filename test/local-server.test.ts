import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '../client/src/webhooks.ts';
import { freePort } from '../local/dynamodb-local.ts';
import { orderBody } from './support/fixtures.ts';
import { startWebhookReceiver } from './support/webhook-receiver.ts';

const run = promisify(execFile);

/** `npm start` as a newcomer runs it: a separate process with its own persistent DynamoDB Local. */
function startServer(env: Record<string, string>): {
  child: ChildProcess;
  output: () => string;
  ready: Promise<string>;
} {
  const child = spawn(process.execPath, ['scripts/start-local.ts'], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const ready = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /ready at (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
  });
  return { child, output: () => output, ready };
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('npm start', () => {
  it('serves orders with the printed demo key, sends webhooks, runs exports, persists under DATA_DIR, and Ctrl-C stops DynamoDB Local', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'abuse-data-'));
    const env = {
      PORT: String(await freePort()),
      DYNAMODB_PORT: String(await freePort()),
      S3_PORT: String(await freePort()),
      DATA_DIR: dataDir,
    };
    // The admin CLI, a process of its own, reaches the server's DynamoDB Local and exports stand-in,
    // and digests with the keys of its DATA_DIR.
    const adminEnv = { PATH: process.env.PATH ?? '', ...env };
    const first = startServer(env);
    const baseUrl = await first.ready;
    const apiKey = /API key: (pk_test_\w+)/.exec(first.output())![1]!;
    expect(first.output()).toContain('Created a demo sandbox merchant');
    const body = orderBody();
    const post = () =>
      fetch(`${baseUrl}/v1/order`, {
        method: 'POST',
        headers: { Authorization: apiKey },
        body: JSON.stringify(body),
      });
    const created = await post();
    expect(created.status).toBe(200);

    // Webhooks go out locally: the same delivery code polls the outbox inside npm start.
    const receiver = await startWebhookReceiver();
    const merchantId = /Demo merchant (mer_\w+)/.exec(first.output())![1]!;
    const { stdout } = await run(
      process.execPath,
      [
        'scripts/admin.ts',
        'webhooks',
        'create',
        '--merchant',
        merchantId,
        '--url',
        receiver.url,
        '--events',
        'decision.created',
      ],
      { env: adminEnv },
    );
    const { secret } = JSON.parse(stdout);
    const next = await fetch(`${baseUrl}/v1/order`, {
      method: 'POST',
      headers: { Authorization: apiKey },
      body: JSON.stringify(orderBody()),
    });
    const deadline = Date.now() + 10_000;
    while (receiver.received.length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    const [delivered] = receiver.received;
    const event = await verifyWebhook(delivered!.body, delivered!.headers as Record<string, string>, secret);
    expect(event).toMatchObject({ type: 'decision.created', data: await next.json() });
    await receiver.close();

    // A bulk export runs locally too: the export poller, on the lake the lake poller keeps.
    const consoleKey = /Console key \(sign in at \/\): (pk_test_\w+)/.exec(first.output())![1]!;
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const asked = await fetch(`${baseUrl}/v1/exports`, {
      method: 'POST',
      headers: { Authorization: consoleKey },
      body: JSON.stringify({ from: yesterday, to: today, format: 'csv', kinds: ['order'] }),
    });
    expect(asked.status).toBe(202);
    const location = asked.headers.get('location')!;
    type Shown = { status: string; files?: { url: string }[] };
    let shown: Shown = { status: 'pending' };
    for (const until = Date.now() + 60_000; Date.now() < until; ) {
      const answer = await fetch(`${baseUrl}${location}`, { headers: { Authorization: consoleKey } });
      shown = (await answer.json()) as Shown;
      if (shown.status !== 'pending') break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(shown.status).toBe('done');
    expect(await (await fetch(shown.files![0]!.url)).text()).toContain(body.providerOrderId);

    // The CLI's privacy export writes where the server's stand-in serves it.
    const email = body.customer.contactInformation.find((c) => c.contactType === 'EMail')!.address;
    const exported = await run(
      process.execPath,
      [
        'scripts/admin.ts',
        'privacy',
        'export',
        '--merchant',
        merchantId,
        '--subject',
        JSON.stringify({ emails: [email] }),
      ],
      { env: adminEnv },
    );
    const request = JSON.parse(exported.stdout) as { status: string; exportUrl: string };
    expect(request.status).toBe('done');
    expect(await (await fetch(request.exportUrl)).text()).toContain(body.providerOrderId);
    first.child.kill('SIGINT');
    expect(await exited(first.child)).toBe(0);
    expect(await portOpen(Number(env.DYNAMODB_PORT))).toBe(false);

    const second = startServer(env);
    await second.ready;
    expect(second.output()).not.toContain('Created a demo sandbox merchant');
    expect(second.output()).toContain(apiKey);
    const replayed = await post();
    expect(replayed.status).toBe(200);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    second.child.kill('SIGINT');
    expect(await exited(second.child)).toBe(0);
  });

  it('without Java says in one line what to install, and exits 1', async () => {
    const server = startServer({
      PATH: '/nonexistent',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'abuse-data-')),
    });
    server.ready.catch(() => undefined);
    expect(await exited(server.child)).toBe(1);
    const lines = server.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/Java 17.*install/);
  });
});

describe('the DynamoDB Local harness (local/dynamodb-local.ts)', () => {
  it('leaves nothing in the directory it is started from', async () => {
    const caller = mkdtempSync(join(tmpdir(), 'caller-'));
    const harness = pathToFileURL(resolve('local/dynamodb-local.ts')).href;
    const sdk = pathToFileURL(createRequire(import.meta.url).resolve('@aws-sdk/client-dynamodb')).href;
    const script = `const { startDynamoDbLocal } = await import(${JSON.stringify(harness)});
      const { CreateTableCommand, DynamoDBClient } = await import(${JSON.stringify(sdk)});
      for (const options of [{}, { dbPath: 'relative-db' }]) {
        const dynamoDb = await startDynamoDbLocal(options);
        await new DynamoDBClient({ endpoint: dynamoDb.endpoint, region: 'local',
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }).send(new CreateTableCommand({
          TableName: 'probe', BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [{ AttributeName: 'PK', AttributeType: 'S' }],
          KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }] }));
        await dynamoDb.stop();
      }`;
    await run(process.execPath, ['--input-type=module', '-e', script], { cwd: caller, env: process.env });
    // The relative data folder is the caller's; DynamoDB Local's own file stays beside the data.
    expect(readdirSync(caller)).toEqual(['relative-db']);
    expect(readdirSync(join(caller, 'relative-db')).sort()).toEqual([
      'dynamodb-local-metadata.json',
      'shared-local-instance.db',
    ]);
  });
});
