import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, inject } from 'vitest';
import { applyLocalEnvironment } from '../../local/local-env.ts';

// Runs before each test file's imports: point the shared DynamoDB client at the run's DynamoDB Local.
applyLocalEnvironment(inject('dynamoDbEndpoint'), {
  // Short enough that a revocation test need not wait the production minute, long enough that
  // a warm-up request stays cached for the request measured after it.
  API_KEY_CACHE_MS: '4000',
  // Suites fire many requests per merchant; test/rate-limit.test.ts sets small limits per merchant.
  DEFAULT_RATE_LIMIT_PER_SECOND: '1000',
  DEFAULT_RATE_LIMIT_BURST: '2000',
  POWERTOOLS_LOG_LEVEL: 'CRITICAL',
  // The network's keyed-hash secret, and its reputation cache off: a test reads what it just wrote.
  NETWORK_HASH_SECRET: 'test-network-secret',
  NETWORK_CACHE_MS: '0',
  // Merchants' digest keys, made on first use (the admin CLI's processes read the same files).
  DIGEST_KEY_DIR: join(tmpdir(), 'abuse-decision-test-digest-keys'),
});

// The contract helper's tally of checked responses, summed and printed by the global teardown.
afterAll(async () => {
  const { reportValidatedResponses } = await import('./contract.ts');
  reportValidatedResponses(inject('contractTallyFile'));
});
