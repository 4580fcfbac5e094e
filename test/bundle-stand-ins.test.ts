import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../lib/lambda-bundle.ts';
import { resolveEndpointDiscoveryConfig } from '../lib/no-endpoint-discovery.ts';
import http, { request } from '../lib/node-http.ts';
import { gte } from '../lib/semver-gte.ts';

/** The small stand-ins the Lambda bundles alias in (lib/lambda-bundle.ts BUNDLE_ALIASES), as units. */
describe('bundle stand-ins', () => {
  it('semver gte compares versions numerically, part by part, as cls-hooked and the X-Ray SDK ask', () => {
    expect(gte(process.versions.node, '8.0.0')).toBe(true);
    expect(gte('8.0.0', '8.0.0')).toBe(true);
    expect(gte('7.10.1', '8.0.0')).toBe(false);
    expect(gte('v8.1.0', '8.0.0')).toBe(true);
    expect(gte('2.1000.0', '2.999.9')).toBe(true);
    expect(gte('2.1.9', '2.1.10')).toBe(false);
    expect(() => gte('not a version', '8.0.0')).toThrow(/Invalid Version/);
  });

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
