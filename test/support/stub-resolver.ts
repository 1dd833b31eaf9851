import type { HostResolver } from '../../src/outbound/outbound-fetch.ts';

// Outbound-guard tests answer DNS from a table instead of the network, and record what was asked.

/** The policy of a deployed stack: https only, no private or loopback address. */
export const strictPolicy = { allowHttp: false, allowLoopback: false };
/** PAPERFLOW_ALLOW_PRIVATE_URLS=true: loopback test servers stand in for public ones. */
export const localPolicy = { allowHttp: true, allowLoopback: true };

/** A resolver answering from `table` (host name → addresses); an unknown name fails as DNS does. */
export function resolverOf(table: Record<string, string[]>): HostResolver & { calls: string[] } {
  const calls: string[] = [];
  const resolver = async (hostname: string) => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) }));
  };
  return Object.assign(resolver, { calls });
}
