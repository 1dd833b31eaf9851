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

/**
 * A resolver for DNS rebinding: each call answers the next list of addresses (then repeats the last),
 * so a name can answer a public address first and a private one next. With `hostname`, only that name
 * resolves (others fail as DNS does); without, every name shares the sequence.
 */
export function rebindingResolver(answers: string[][], hostname?: string): HostResolver & { calls: string[] } {
  const calls: string[] = [];
  const resolver = async (asked: string) => {
    calls.push(asked);
    if (hostname !== undefined && asked !== hostname) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    const addresses = answers[Math.min(calls.length, answers.length) - 1]!;
    return addresses.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) }));
  };
  return Object.assign(resolver, { calls });
}
