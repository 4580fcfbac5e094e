/**
 * Stands in for @aws-sdk/middleware-endpoint-discovery in the Lambda bundles (lib/lambda-bundle.ts
 * aliases it here): the DynamoDB client resolves its endpoint-discovery settings when it is built,
 * but none of its commands adds the discovery middleware (test/bundle-stand-ins.test.ts checks the
 * SDK), so the endpoint cache it creates, an LRU with mnemonist and obliterator (9 KB), is never
 * read. The client's own setting resolves as before, without the cache; the environment and
 * config-file switch (AWS_ENABLE_ENDPOINT_DISCOVERY) reads as unset, since nothing would act on it.
 */
export const NODE_ENDPOINT_DISCOVERY_CONFIG_OPTIONS = {
  environmentVariableSelector: (): boolean | undefined => undefined,
  configFileSelector: (): boolean | undefined => undefined,
  default: undefined,
};

export function resolveEndpointDiscoveryConfig<
  T extends { endpointDiscoveryEnabled?: boolean; endpointDiscoveryEnabledProvider?: unknown },
>(input: T, { endpointDiscoveryCommandCtor }: { endpointDiscoveryCommandCtor: unknown }) {
  const { endpointDiscoveryEnabled, endpointDiscoveryEnabledProvider } = input;
  return Object.assign(input, {
    endpointDiscoveryCommandCtor,
    endpointDiscoveryEnabled:
      endpointDiscoveryEnabled !== undefined
        ? () => Promise.resolve(endpointDiscoveryEnabled)
        : endpointDiscoveryEnabledProvider,
    isClientEndpointDiscoveryEnabled: endpointDiscoveryEnabled !== undefined,
  });
}
