// SSRF probes against the outbound guard (DESIGN.md "Outbound URL safety"), shared by the unit suite
// (test/integration/ssrf-probes.test.ts) and the API suite (test/integration/ssrf-api.test.ts).

const privateAddress = 'must not point to a private, loopback or reserved address';

/** A URL refused from its text alone: the API answers 422 with `issue` on the field that carried it. */
export interface LiteralProbe {
  kind: string;
  url: string;
  issue: string;
}

const probe = (kind: string, url: string, issue = privateAddress): LiteralProbe => ({ kind, url, issue });

export const literalProbes: LiteralProbe[] = [
  probe('loopback', 'https://127.0.0.1/a.pdf'),
  probe('loopback, another address of 127/8', 'https://127.0.0.2/a.pdf'),
  probe('loopback, top of 127/8', 'https://127.255.255.254/a.pdf'),
  probe('loopback name', 'https://localhost/a.pdf'),
  probe('loopback name, mixed case', 'https://LocalHost/a.pdf'),
  probe('loopback name, localdomain', 'https://localhost.localdomain/a.pdf'),
  probe('IPv6 loopback', 'https://[::1]/a.pdf'),
  probe('RFC 1918 10/8', 'https://10.0.0.1/a.pdf'),
  probe('RFC 1918 10/8, top', 'https://10.255.255.255/a.pdf'),
  probe('RFC 1918 172.16/12', 'https://172.16.0.1/a.pdf'),
  probe('RFC 1918 172.16/12, top', 'https://172.31.255.255/a.pdf'),
  probe('RFC 1918 192.168/16', 'https://192.168.1.1/a.pdf'),
  probe('cloud metadata', 'https://169.254.169.254/latest/meta-data/'),
  probe('cloud metadata, IPv6 (EC2)', 'https://[fd00:ec2::254]/latest/meta-data/'),
  probe('cloud metadata, hex', 'https://0xa9fea9fe/latest/meta-data/'),
  probe('cloud metadata, octal', 'https://0251.0376.0251.0376/latest/meta-data/'),
  probe('cloud metadata, short form', 'https://169.254.43518/latest/meta-data/'),
  probe('cloud metadata, trailing dot', 'https://169.254.169.254./latest/meta-data/'),
  probe('cloud metadata, full-width digits', 'https://１６９.２５４.１６９.２５４/latest/meta-data/'),
  probe('link-local IPv4', 'https://169.254.0.1/a.pdf'),
  probe('link-local IPv6', 'https://[fe80::1]/a.pdf'),
  probe('CGNAT 100.64/10', 'https://100.64.0.1/a.pdf'),
  probe('CGNAT 100.64/10, top', 'https://100.127.255.254/a.pdf'),
  probe('multicast IPv4', 'https://224.0.0.1/a.pdf'),
  probe('multicast IPv6', 'https://[ff02::1]/a.pdf'),
  probe('broadcast', 'https://255.255.255.255/a.pdf'),
  probe('reserved 240/4', 'https://240.0.0.1/a.pdf'),
  probe('this network', 'https://0.0.0.0/a.pdf'),
  probe('this network, single zero', 'https://0/a.pdf'),
  probe('IPv6 unspecified', 'https://[::]/a.pdf'),
  probe('documentation 192.0.2/24', 'https://192.0.2.1/a.pdf'),
  probe('documentation 198.51.100/24', 'https://198.51.100.7/a.pdf'),
  probe('documentation 203.0.113/24', 'https://203.0.113.9/a.pdf'),
  probe('documentation 2001:db8::/32', 'https://[2001:db8::1]/a.pdf'),
  probe('documentation 3fff::/20', 'https://[3fff::1]/a.pdf'),
  probe('benchmarking 198.18/15', 'https://198.18.0.1/a.pdf'),
  probe('unique-local fc00::/7, fc', 'https://[fc00::1]/a.pdf'),
  probe('unique-local fc00::/7, fd', 'https://[fd12:3456::1]/a.pdf'),
  probe('site-local IPv6', 'https://[fec0::1]/a.pdf'),
  probe('IPv4-mapped loopback, dotted', 'https://[::ffff:127.0.0.1]/a.pdf'),
  probe('IPv4-mapped loopback, hex', 'https://[::ffff:7f00:1]/a.pdf'),
  probe('IPv4-mapped loopback, long form', 'https://[0:0:0:0:0:ffff:127.0.0.1]/a.pdf'),
  probe('IPv4-mapped metadata', 'https://[::ffff:a9fe:a9fe]/latest/meta-data/'),
  probe('IPv4-translated loopback (::ffff:0:0:0/96)', 'https://[::ffff:0:7f00:1]/a.pdf'),
  probe('IPv4-compatible loopback', 'https://[::127.0.0.1]/a.pdf'),
  probe('NAT64 loopback', 'https://[64:ff9b::7f00:1]/a.pdf'),
  probe('NAT64 metadata', 'https://[64:ff9b::a9fe:a9fe]/a.pdf'),
  probe('6to4 loopback', 'https://[2002:7f00:1::]/a.pdf'),
  probe('6to4 metadata', 'https://[2002:a9fe:a9fe::1]/latest/meta-data/'),
  probe('NAT64 RFC 1918', 'https://[64:ff9b::a00:1]/a.pdf'),
  probe('Teredo', 'https://[2001:0:4136:e378::1]/a.pdf'),
  probe('decimal loopback', 'https://2130706433/a.pdf'),
  probe('decimal metadata', 'https://2852039166/latest/meta-data/'),
  probe('octal loopback', 'https://0177.0.0.1/a.pdf'),
  probe('octal loopback, one number', 'https://017700000001/a.pdf'),
  probe('hex loopback, two parts', 'https://0x7f.1/a.pdf'),
  probe('hex loopback, one number', 'https://0x7f000001/a.pdf'),
  probe('hex private, dotted', 'https://0x0a.0x00.0x00.0x01/a.pdf'),
  probe('short loopback', 'https://127.1/a.pdf'),
  probe('short private', 'https://10.1/a.pdf'),
  probe('zero-padded loopback', 'https://127.000.000.001/a.pdf'),
  probe('percent-encoded loopback', 'https://%31%32%37.0.0.1/a.pdf'),
  probe('full-width digits', 'https://１２７.０.０.１/a.pdf'),
  probe('ideographic full stops', 'https://127。0。0。1/a.pdf'),
  probe('enclosed letters spelling localhost', 'https://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ/a.pdf'),
  probe('trailing dot on localhost', 'https://localhost./a.pdf'),
  probe('trailing dot on a loopback address', 'https://127.0.0.1./a.pdf'),
  probe('*.localhost', 'https://a.localhost/a.pdf'),
  probe('*.localhost with a trailing dot', 'https://a.localhost./a.pdf'),
  probe('backslashes for slashes', 'https:\\\\127.0.0.1/a.pdf'),
  probe('no slashes after the scheme', 'https:127.0.0.1/a.pdf'),
  probe('credentials', 'https://user:pass@example.com/a.pdf', 'must not contain user credentials'),
  probe('user name only', 'https://user@example.com/a.pdf', 'must not contain user credentials'),
  probe('@ trick: public name as user, loopback host', 'https://example.com@127.0.0.1/a.pdf', 'must not contain user credentials'),
  probe('# trick: loopback host, public name in the fragment', 'https://127.0.0.1#@example.com/a.pdf', 'must not contain a fragment'),
  probe('fragment', 'https://example.com/a.pdf#page=2', 'must not contain a fragment'),
  probe('empty fragment', 'https://example.com/a.pdf#', 'must not contain a fragment'),
  probe('plain http', 'http://example.com/a.pdf', 'must use https'),
  probe('plain http, upper-case scheme', 'HTTP://example.com/a.pdf', 'must use https'),
  probe('@ trick: public host and port as user, IPv6 loopback host', 'https://example.com:443@[::1]/a.pdf', 'must not contain user credentials'),
  probe('plain http to metadata', 'http://169.254.169.254/latest/meta-data/', 'must use https'),
  probe('ftp', 'ftp://example.com/a.pdf', 'must use https'),
  probe('file', 'file:///etc/passwd', 'must use https'),
  probe('gopher', 'gopher://127.0.0.1:6379/_INFO', 'must use https'),
  probe('data', 'data:application/pdf;base64,JVBERi0=', 'must use https'),
  probe('javascript', 'javascript:alert(1)', 'must use https'),
  probe('IPv6 zone identifier', 'https://[fe80::1%25eth0]/a.pdf', 'must be an absolute URL'),
];

/**
 * The probe with `port` added to its authority, text otherwise untouched (so the numeric spelling, the
 * `@` or the trailing dot still reach the guard as written): aimed at a local trap listener, a probe
 * that got through would show up as a connection there. URLs with no `//` authority or a port of
 * their own are returned as they are.
 */
export function aimedAt(url: string, port: number): string {
  const match = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)(.*)$/is.exec(url);
  if (!match) return url;
  const [, scheme, authority, rest] = match as unknown as [string, string, string, string];
  const host = authority.slice(authority.lastIndexOf('@') + 1);
  if (host === '' || /:\d+$/.test(host) || scheme.startsWith('file')) return url;
  return `${scheme}${authority}:${port}${rest}`;
}

/**
 * A host name only a resolver can judge: it passes the literal check, and the stub resolver answers
 * `addresses`. Probes whose answer lands on this machine are sent to the counting listener's port.
 */
export interface ResolvedProbe {
  kind: string;
  hostname: string;
  addresses: string[];
}

export const resolvedProbes: ResolvedProbe[] = [
  { kind: 'name resolving to loopback', hostname: 'internal.example.test', addresses: ['127.0.0.1'] },
  { kind: 'wildcard DNS embedding loopback', hostname: '127.0.0.1.nip.io', addresses: ['127.0.0.1'] },
  { kind: 'name resolving to another 127/8 address', hostname: 'loop2.example.test', addresses: ['127.0.0.2'] },
  { kind: 'name resolving to IPv6 loopback', hostname: 'loop6.example.test', addresses: ['::1'] },
  { kind: 'name resolving to IPv4-mapped loopback', hostname: 'mapped.example.test', addresses: ['::ffff:127.0.0.1'] },
  { kind: 'name resolving to a public and a loopback address', hostname: 'mixed.example.test', addresses: ['93.184.216.34', '127.0.0.1'] },
  { kind: 'name resolving to the metadata address', hostname: 'metadata.example.test', addresses: ['169.254.169.254'] },
  { kind: 'name resolving to the IPv6 metadata address', hostname: 'metadata6.example.test', addresses: ['fd00:ec2::254'] },
  { kind: 'name resolving to a 6to4 address embedding loopback', hostname: 'sixtofour.example.test', addresses: ['2002:7f00:1::1'] },
  { kind: 'name resolving to broadcast', hostname: 'broadcast.example.test', addresses: ['255.255.255.255'] },
  { kind: 'name resolving to RFC 1918', hostname: 'intranet.example.test', addresses: ['10.0.0.8'] },
  { kind: 'name resolving to CGNAT', hostname: 'cgnat.example.test', addresses: ['100.64.0.9'] },
  { kind: 'name resolving to unique-local IPv6', hostname: 'ula.example.test', addresses: ['fd00::8'] },
  { kind: 'name resolving to NAT64 loopback', hostname: 'nat64.example.test', addresses: ['64:ff9b::7f00:1'] },
  { kind: 'name resolving to 0.0.0.0', hostname: 'zero.example.test', addresses: ['0.0.0.0'] },
  { kind: 'public-looking name with a trailing dot', hostname: 'docs.example.com.', addresses: ['127.0.0.1'] },
];
