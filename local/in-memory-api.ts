import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDynamoDbLocal } from './dynamodb-local.ts';
import { applyLocalEnvironment } from './local-env.ts';

/**
 * The API on an in-memory DynamoDB Local with the table made and no rate limit in the way, for
 * scripts that play traffic through HTTP (`npm run eval`, the webhook part of `npm run bench`);
 * `webAcl` puts the stage's web ACL stand-in in front (the key-flood benchmark).
 */
export async function startInMemoryApi(
  options: { webAcl?: boolean } = {},
): Promise<{ baseUrl: string; stop: () => Promise<void> }> {
  const dynamoDb = await startDynamoDbLocal({});
  applyLocalEnvironment(dynamoDb.endpoint, {
    DEFAULT_RATE_LIMIT_PER_SECOND: '100000',
    DEFAULT_RATE_LIMIT_BURST: '100000',
    // The network's keyed-hash secret: a fresh one per run (nothing outlives the in-memory table).
    NETWORK_HASH_SECRET: process.env.NETWORK_HASH_SECRET ?? randomBytes(32).toString('base64url'),
    // Merchants' digest keys: fresh ones per run, like the table.
    DIGEST_KEY_DIR: mkdtempSync(join(tmpdir(), 'abuse-decision-digest-keys-')),
  });
  const { ensureTable } = await import('../shared/store/ensure-table.ts');
  const { dynamoDbClient, tableName } = await import('../shared/store/client.ts');
  const { createLocalServer } = await import('./http-adapter.ts');
  await ensureTable(dynamoDbClient, tableName);
  const server = createLocalServer(options);
  // The client (fetch) drops an idle connection after 4 s; a server that drops it first, at its
  // default 5 s, can close a socket the client is just reusing, under load (ECONNRESET mid-run).
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: async () => {
      server.closeAllConnections();
      server.close();
      await dynamoDb.stop();
    },
  };
}
