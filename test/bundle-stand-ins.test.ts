import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../lib/lambda-bundle.ts';
import { resolveEndpointDiscoveryConfig } from '../lib/no-endpoint-discovery.ts';
import http, { request } from '../lib/node-http.ts';

/** The small stand-ins the Lambda bundles alias in (lib/lambda-bundle.ts BUNDLE_ALIASES), as units. */
describe('bundle stand-ins', () => {
  it('node:http is the very module require gives, without its ES module facade', () => {
    expect(http).toBe(process.getBuiltinModule('node:http'));
    expect(request).toBe(http.request);
  });

  it('endpoint discovery resolves its settings without a cache, and no DynamoDB command uses it', async () => {
    class DescribeEndpoints {}
    const config = resolveEndpointDiscoveryConfig(
      { endpointDiscoveryEnabled: false as boolean | undefined },
      { endpointDiscoveryCommandCtor: DescribeEndpoints },
    );
    expect(config.endpointDiscoveryCommandCtor).toBe(DescribeEndpoints);
    expect(config.isClientEndpointDiscoveryEnabled).toBe(true);
    expect(await (config.endpointDiscoveryEnabled as unknown as () => Promise<boolean>)()).toBe(false);
    // The stand-in is right only while the client's commands never add the discovery middleware.
    const commands = join(REPO_ROOT, 'node_modules/@aws-sdk/client-dynamodb/dist-es/commands');
    const users = readdirSync(commands).filter((file) =>
      readFileSync(join(commands, file), 'utf8').includes('getEndpointDiscovery'),
    );
    expect(users).toEqual([]);
  });
});
