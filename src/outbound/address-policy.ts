import { BlockList, isIP } from 'node:net';

// Which network addresses an outbound request (document URL, webhook endpoint, web_function) may
// reach. Everything that is not a public unicast address is refused: a caller-supplied URL must never
// reach the service's own network, the cloud metadata endpoint or another tenant's private service.

export type AddressClass = 'public' | 'loopback' | 'non-public';

// One list per family: a BlockList matches IPv4 addresses against IPv6 rules through their mapped
// form (::ffff:0:0/96 would cover every IPv4 address), so each family is checked on its own.
const loopbackV4 = new BlockList();
loopbackV4.addSubnet('127.0.0.0', 8, 'ipv4');
const loopbackV6 = new BlockList();
loopbackV6.addAddress('::1', 'ipv6');

const nonPublicV4 = new BlockList();
const nonPublicV6 = new BlockList();
// Only 2000::/3 is allocated for global unicast; everything outside it (IPv4-translated ::ffff:0:0:0/96,
// future or unassigned space) is refused without having to be named below.
const globalUnicastV6 = new BlockList();
globalUnicastV6.addSubnet('2000::', 3, 'ipv6');
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  nonPublicV4.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::', 96], // IPv4-compatible (deprecated), would smuggle an IPv4 address
  ['::ffff:0:0', 96], // IPv4-mapped: refused outright, whatever address it embeds
  ['64:ff9b::', 96], // NAT64: reaches an arbitrary IPv4 address
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001::', 32], // Teredo: tunnels to an embedded IPv4 address
  ['2001:2::', 48], // benchmarking
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: embeds an IPv4 address
  ['3fff::', 20], // documentation (RFC 9637)
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  nonPublicV6.addSubnet(network, prefix, 'ipv6');
}

/** Classifies an IP address literal (no brackets). Anything unparsable is `non-public`. */
export function classifyAddress(address: string): AddressClass {
  const family = isIP(address);
  if (family === 0) return 'non-public';
  if (family === 4) {
    if (loopbackV4.check(address, 'ipv4')) return 'loopback';
    return nonPublicV4.check(address, 'ipv4') ? 'non-public' : 'public';
  }
  if (loopbackV6.check(address, 'ipv6')) return 'loopback';
  if (!globalUnicastV6.check(address, 'ipv6')) return 'non-public';
  return nonPublicV6.check(address, 'ipv6') ? 'non-public' : 'public';
}

export interface AddressPolicy {
  /** Local development and tests only (PAPERFLOW_ALLOW_PRIVATE_URLS=true): loopback is reachable. */
  allowLoopback: boolean;
}

export function isAddressAllowed(address: string, policy: AddressPolicy): boolean {
  const addressClass = classifyAddress(address);
  return addressClass === 'public' || (addressClass === 'loopback' && policy.allowLoopback);
}

/** The host part of a URL as an IP literal, without IPv6 brackets; undefined for DNS names. */
export function ipLiteralOf(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) === 0 ? undefined : bare;
}
