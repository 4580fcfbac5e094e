import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve as resolvePath } from 'node:path';

/**
 * Runs the official DynamoDB Local (the jar shipped in the npm package amplify-dynamodb-simulator),
 * in memory for tests or persisted under a folder for `npm start`.
 */
export interface DynamoDbLocal {
  endpoint: string;
  port: number;
  stop: () => Promise<void>;
}

export class JavaMissingError extends Error {
  constructor() {
    super(
      'DynamoDB Local needs Java 17 or newer on PATH: install it (Debian/Ubuntu: apt-get install openjdk-17-jre-headless).',
    );
    this.name = 'JavaMissingError';
  }
}

export function emulatorFolder(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('amplify-dynamodb-simulator/package.json')), 'emulator');
}

export function assertJavaAvailable(): void {
  const probe = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) throw new JavaMissingError();
  const version = /version "(\d+)/.exec(`${probe.stderr}${probe.stdout}`)?.[1];
  if (version && Number(version) < 17) throw new JavaMissingError();
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function startDynamoDbLocal(options: {
  port?: number;
  dbPath?: string;
}): Promise<DynamoDbLocal> {
  assertJavaAvailable();
  const port = options.port ?? (await freePort());
  const folder = emulatorFolder();
  // Absolute: DynamoDB Local runs in a working directory of its own (below).
  const dbPath = options.dbPath === undefined ? undefined : resolvePath(options.dbPath);
  const storage = dbPath ? ['-dbPath', dbPath] : ['-inMemory'];
  if (dbPath) mkdirSync(dbPath, { recursive: true });
  // DynamoDB Local writes an installation id (dynamodb-local-metadata.json) into its working
  // directory: keep it beside the data, or in a folder of its own for an in-memory run, never in
  // the caller's checkout.
  const workingDirectory = dbPath ?? mkdtempSync(join(tmpdir(), 'dynamodb-local-'));
  const child: ChildProcess = spawn(
    'java',
    [
      `-Djava.library.path=${join(folder, 'DynamoDBLocal_lib')}`,
      '-jar',
      join(folder, 'DynamoDBLocal.jar'),
      ...storage,
      '-sharedDb',
      // Local runs and CI send nothing to AWS.
      '-disableTelemetry',
      '-port',
      String(port),
    ],
    { cwd: workingDirectory, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  if (!dbPath) child.once('exit', () => rmSync(workingDirectory, { recursive: true, force: true }));
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const endpoint = `http://127.0.0.1:${port}`;
  await waitUntilListening(endpoint, child, () => output);
  return {
    endpoint,
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

const STARTUP_LIMIT_MS = 120_000;

async function waitUntilListening(
  endpoint: string,
  child: ChildProcess,
  output: () => string,
): Promise<void> {
  // A hang detector: a JVM starting on a busy 2-core machine has taken over 30 s.
  const deadline = Date.now() + STARTUP_LIMIT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited early:\n${output()}`);
    try {
      await fetch(endpoint);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  child.kill('SIGKILL');
  throw new Error(`DynamoDB Local did not start within ${STARTUP_LIMIT_MS / 1000} s:\n${output()}`);
}
