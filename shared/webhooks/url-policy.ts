import { BlockList, isIP } from 'node:net';
import type { Environment } from '../config.ts';

/**
 * Where webhooks may go (SSRF). Production: `https` only, and never to loopback, private,
 * link-local, carrier-grade NAT, multicast or cloud metadata addresses; checked when an endpoint is
 * saved (the URL) and again at every delivery on the addresses DNS gives (post.ts connects only to
 * an address checked here). Sandbox and local mode allow `http` and local addresses for testing.
 */
export type UrlPolicy = 'production' | 'permissive';

export const urlPolicyOf = (environment: Environment): UrlPolicy =>
  environment === 'production' ? 'production' : 'permissive';

const FORBIDDEN = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, includes the instance metadata service 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique local, includes the metadata service fd00:ec2::254
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv6');
}

const FORBIDDEN_HOST_NAMES = [/^localhost$/, /\.localhost$/, /\.internal$/, /\.local$/];

/** Whether an IP address is one production never delivers to. */
export function isForbiddenAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 4) return FORBIDDEN.check(address, 'ipv4');
  if (version !== 6) return true;
  // IPv4 written inside IPv6 (::ffff:10.0.0.1, NAT64 64:ff9b::10.0.0.1) is that IPv4 address.
  const embedded = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (embedded) return FORBIDDEN.check(embedded, 'ipv4');
  return FORBIDDEN.check(address, 'ipv6');
}

/** Why a URL cannot be a webhook endpoint under the policy, or undefined when it can. */
export function webhookUrlProblem(raw: string, policy: UrlPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a valid URL';
  }
  if (url.username || url.password) return 'a webhook URL must not carry credentials';
  if (url.protocol !== 'https:' && !(policy === 'permissive' && url.protocol === 'http:')) {
    return policy === 'production' ? 'a webhook URL must use https' : 'a webhook URL must use http or https';
  }
  if (policy === 'permissive') return undefined;
  // `localhost.` is `localhost`: a trailing dot must not slip a name past the rules.
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (isIP(host) ? isForbiddenAddress(host) : FORBIDDEN_HOST_NAMES.some((p) => p.test(host))) {
    return `${host} is a loopback, private, link-local or metadata address`;
  }
  return undefined;
}
