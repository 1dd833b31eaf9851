import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fetchOutbound, lookupsRememberedFor, OutboundConnectionPool, OutboundRequestError, type OutboundOptions, type ResolvedAddress } from '../../src/outbound/outbound-fetch.ts';
import { countingServer } from '../support/counting-server.ts';
import { localPolicy, resolverOf, strictPolicy } from '../support/stub-resolver.ts';
import { rejectionOf } from '../support/rejections.ts';

type Route = (request: IncomingMessage, response: ServerResponse) => void;

let server: Server;
let port: number;
let routes: Record<string, Route> = {};
let received: IncomingMessage[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    received.push(request);
    const route = routes[new URL(request.url ?? '/', 'http://x').pathname];
    if (route) route(request, response);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterEach(() => {
  routes = {};
  received = [];
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const strict = strictPolicy;
const local = localPolicy;

function options(overrides: Partial<OutboundOptions> = {}): OutboundOptions {
  return { policy: local, urlRules: { refuseFragment: true }, timeoutMs: 2_000, maxResponseBytes: 1_000, maxRedirects: 3, ...overrides };
}

const failureOf = (promise: Promise<unknown>) => rejectionOf(promise, OutboundRequestError);

describe('fetchOutbound', () => {
  it('connects to the checked address while sending the original host name', async () => {
    routes['/doc.pdf'] = (_request, response) => response.end('%PDF-1.7 hello');
    const resolver = resolverOf({ 'docs.example.test': ['127.0.0.1'] });

    const response = await fetchOutbound({ url: `http://docs.example.test:${port}/doc.pdf` }, options({ resolveHost: resolver }));

    expect(response.status).toBe(200);
    expect(response.body.toString()).toBe('%PDF-1.7 hello');
    expect(received[0]!.headers.host).toBe(`docs.example.test:${port}`);
    expect(resolver.calls).toEqual(['docs.example.test']);
  });

  it('refuses a host that resolves to a private address without connecting', async () => {
    const resolver = resolverOf({ 'internal.example.test': ['10.0.0.8'] });

    const failure = await failureOf(fetchOutbound({ url: `http://internal.example.test:${port}/doc.pdf` }, options({ resolveHost: resolver })));

    expect(failure.kind).toBe('refused-address');
    expect(failure.transient).toBe(false);
    expect(received).toHaveLength(0);
  });

  it('refuses a host when any of its addresses is private', async () => {
    const resolver = resolverOf({ 'mixed.example.test': ['93.184.216.34', '169.254.169.254'] });

    const failure = await failureOf(fetchOutbound({ url: 'https://mixed.example.test/doc.pdf' }, options({ policy: strict, resolveHost: resolver })));

    expect(failure.kind).toBe('refused-address');
  });

  it('refuses loopback and plain http without the local setting', async () => {
    const resolver = resolverOf({ 'docs.example.test': ['127.0.0.1'] });

    const viaName = await failureOf(fetchOutbound({ url: `https://docs.example.test:${port}/doc.pdf` }, options({ policy: strict, resolveHost: resolver })));
    const viaHttp = await failureOf(fetchOutbound({ url: `http://docs.example.test:${port}/doc.pdf` }, options({ policy: strict, resolveHost: resolver })));
    const viaLiteral = await failureOf(fetchOutbound({ url: `https://0x7f.1:${port}/doc.pdf` }, options({ policy: strict })));

    expect(viaName.kind).toBe('refused-address');
    expect(viaHttp.kind).toBe('refused-url');
    expect(viaLiteral.kind).toBe('refused-url');
    expect(received).toHaveLength(0);
  });

  it('reports an unknown host as a permanent DNS failure', async () => {
    const failure = await failureOf(fetchOutbound({ url: 'http://nowhere.example.test/doc.pdf' }, options({ resolveHost: resolverOf({}) })));

    expect(failure.kind).toBe('dns');
    expect(failure.transient).toBe(false);
  });

  it('says the same of a host that does not resolve and one that resolves to a private address', async () => {
    const resolver = resolverOf({ 'internal.example.test': ['10.0.0.8'], 'empty.example.test': [] });

    const privateHost = await failureOf(fetchOutbound({ url: `http://internal.example.test:${port}/doc.pdf` }, options({ resolveHost: resolver })));
    const unknownHost = await failureOf(fetchOutbound({ url: `http://nowhere.example.test:${port}/doc.pdf` }, options({ resolveHost: resolver })));
    const noAddresses = await failureOf(fetchOutbound({ url: `http://empty.example.test:${port}/doc.pdf` }, options({ resolveHost: resolver })));

    const named = (failure: OutboundRequestError, hostname: string) => failure.message.replace(hostname, '<host>');
    expect(named(privateHost, 'internal.example.test')).toBe('The host <host> could not be resolved to a public address.');
    expect(named(unknownHost, 'nowhere.example.test')).toBe(named(privateHost, 'internal.example.test'));
    expect(named(noAddresses, 'empty.example.test')).toBe(named(privateHost, 'internal.example.test'));
  });

  it('follows redirects, checking and resolving each hop', async () => {
    routes['/start'] = (_request, response) => response.writeHead(302, { location: `http://second.example.test:${port}/doc.pdf#frag` }).end();
    routes['/doc.pdf'] = (_request, response) => response.end('content');
    const resolver = resolverOf({ 'first.example.test': ['127.0.0.1'], 'second.example.test': ['127.0.0.1'] });

    const response = await fetchOutbound({ url: `http://first.example.test:${port}/start` }, options({ resolveHost: resolver }));

    expect(response.body.toString()).toBe('content');
    expect(response.url).toBe(`http://second.example.test:${port}/doc.pdf`);
    expect(resolver.calls).toEqual(['first.example.test', 'second.example.test']);
  });

  it('refuses a redirect to a private literal address', async () => {
    routes['/start'] = (_request, response) => response.writeHead(301, { location: 'http://169.254.169.254/latest/meta-data' }).end();

    const failure = await failureOf(fetchOutbound({ url: `http://127.0.0.1:${port}/start` }, options()));

    expect(failure.kind).toBe('refused-url');
  });

  it('refuses a redirect to a name that resolves to a private address', async () => {
    routes['/start'] = (_request, response) => response.writeHead(307, { location: `http://rebound.example.test:${port}/x` }).end();
    const resolver = resolverOf({ 'rebound.example.test': ['192.168.0.1'] });

    const failure = await failureOf(fetchOutbound({ url: `http://127.0.0.1:${port}/start` }, options({ resolveHost: resolver })));

    expect(failure.kind).toBe('refused-address');
    expect(received).toHaveLength(1);
  });

  it('stops after the allowed number of redirects', async () => {
    routes['/loop'] = (_request, response) => response.writeHead(302, { location: '/loop' }).end();

    const failure = await failureOf(fetchOutbound({ url: `http://127.0.0.1:${port}/loop` }, options({ maxRedirects: 2 })));

    expect(failure.kind).toBe('too-many-redirects');
    expect(received).toHaveLength(3);
  });

  it('returns a redirect as it is when redirects are not followed', async () => {
    routes['/moved'] = (_request, response) => response.writeHead(302, { location: '/elsewhere' }).end();

    const response = await fetchOutbound({ url: `http://127.0.0.1:${port}/moved`, method: 'POST', body: '{}' }, options({ maxRedirects: 0 }));

    expect(response.status).toBe(302);
    expect(received).toHaveLength(1);
  });

  it('turns a POST into a GET on 303', async () => {
    routes['/submit'] = (_request, response) => response.writeHead(303, { location: '/result' }).end();
    routes['/result'] = (request, response) => response.end(request.method);

    const response = await fetchOutbound({ url: `http://127.0.0.1:${port}/submit`, method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' } }, options());

    expect(response.body.toString()).toBe('GET');
  });

  it('refuses a body over the cap, declared or streamed', async () => {
    routes['/declared'] = (_request, response) => response.writeHead(200, { 'content-length': '5000' }).end(Buffer.alloc(5000));
    routes['/streamed'] = (_request, response) => {
      response.writeHead(200);
      for (let chunk = 0; chunk < 5; chunk += 1) response.write(Buffer.alloc(400));
      response.end();
    };

    const declared = await failureOf(fetchOutbound({ url: `http://127.0.0.1:${port}/declared` }, options()));
    const streamed = await failureOf(fetchOutbound({ url: `http://127.0.0.1:${port}/streamed` }, options()));

    expect(declared.kind).toBe('too-large');
    expect(streamed.kind).toBe('too-large');
  });

  it('keeps the first bytes of a body over the cap when asked to truncate, declared or streamed', async () => {
    routes['/declared'] = (_request, response) => response.writeHead(200, { 'content-length': '5000' }).end(Buffer.alloc(5000, 'a'));
    routes['/streamed'] = (_request, response) => {
      response.writeHead(200);
      for (let chunk = 0; chunk < 5; chunk += 1) response.write(Buffer.alloc(400, String(chunk)));
      response.end();
    };

    const declared = await fetchOutbound({ url: `http://127.0.0.1:${port}/declared` }, options({ oversizedBody: 'truncate' }));
    const streamed = await fetchOutbound({ url: `http://127.0.0.1:${port}/streamed` }, options({ oversizedBody: 'truncate' }));

    expect(declared.body.toString()).toBe('a'.repeat(1_000));
    expect(declared.truncated).toBe(true);
    expect(streamed.body.toString()).toBe('0'.repeat(400) + '1'.repeat(400) + '2'.repeat(200));
    expect(streamed.truncated).toBe(true);
  });

  it('accepts a body exactly at the cap', async () => {
    routes['/exact'] = (_request, response) => response.end(Buffer.alloc(1_000));

    const response = await fetchOutbound({ url: `http://127.0.0.1:${port}/exact` }, options());

    expect(response.body).toHaveLength(1_000);
  });

  it('times out a server that never answers, as a transient failure', async () => {
    routes['/hang'] = () => undefined;

    const failure = await failureOf(fetchOutbound({ url: `http://127.0.0.1:${port}/hang` }, options({ timeoutMs: 200 })));

    expect(failure.kind).toBe('timeout');
    expect(failure.transient).toBe(true);
  });

  it('times out a body that stalls half way', async () => {
    routes['/stall'] = (_request, response) => {
      response.writeHead(200, { 'content-length': '100' });
      response.write('partial');
    };

    const failure = await failureOf(fetchOutbound({ url: `http://127.0.0.1:${port}/stall` }, options({ timeoutMs: 200 })));

    expect(failure.kind).toBe('timeout');
  });

  it('reports a refused connection as transient', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));

    const failure = await failureOf(fetchOutbound({ url: `http://127.0.0.1:${closedPort}/x` }, options()));

    expect(failure.kind).toBe('connection');
    expect(failure.transient).toBe(true);
  });
});

describe('fetchOutbound with a connection pool', () => {
  it('reuses a kept-alive connection only for a request pinned to the same checked address', async () => {
    const first = await countingServer('127.0.0.1');
    const second = await countingServer('127.0.0.2', first.port);
    const pool = new OutboundConnectionPool();
    let answer: ResolvedAddress[] = [{ address: '127.0.0.1', family: 4 }];
    const resolveHost = async () => answer;
    const post = () => fetchOutbound({ url: `http://hooks.example.test:${first.port}/hook`, method: 'POST', body: '{}' }, options({ resolveHost, connections: pool }));
    try {
      const answers = [await post(), await post(), await post()];
      answer = [{ address: '127.0.0.2', family: 4 }];
      const rebound = await post();

      expect([...answers, rebound].map((response) => response.status)).toEqual([200, 200, 200, 200]);
      expect(first.requested).toEqual(['/hook', '/hook', '/hook']);
      expect(first.accepted).toEqual(['127.0.0.1']);
      expect(second.requested).toEqual(['/hook']);
      expect(second.accepted).toEqual(['127.0.0.2']);
    } finally {
      pool.close();
      await first.close();
      await second.close();
    }
  });

  it('sends once more on a connection of its own when the kept-alive one it reused is reset', async () => {
    // A receiver that answers the first request of each connection with keep-alive and resets the
    // connection on the next, as one that timed out an idle connection at the moment it was reused.
    const connections: number[] = [];
    const server = createNetServer((socket) => {
      const connection = connections.push(0) - 1;
      socket.on('data', (chunk) => {
        for (let request = 0; request < chunk.toString().split('POST ').length - 1; request += 1) {
          connections[connection]! += 1;
          if (connections[connection] === 1) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok');
          else socket.resetAndDestroy();
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const serverPort = (server.address() as AddressInfo).port;
    const pool = new OutboundConnectionPool();
    const post = (path: string) => fetchOutbound({ url: `http://127.0.0.1:${serverPort}${path}`, method: 'POST', body: '{}' }, options({ connections: pool }));
    try {
      const firstAnswer = await post('/a');
      const secondAnswer = await post('/b');

      expect([firstAnswer.status, secondAnswer.status]).toEqual([200, 200]);
      // The second request went out on the kept connection (reset there), then on a new one.
      expect(connections).toEqual([2, 1]);
    } finally {
      pool.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('lookupsRememberedFor', () => {
  it('asks DNS once per host while it is kept, and a new one asks again', async () => {
    routes['/hook'] = (_request, response) => response.end('ok');
    const dns = resolverOf({ 'hooks.example.test': ['127.0.0.1'], 'other.example.test': ['127.0.0.1'] });
    const invocation = lookupsRememberedFor(dns);
    const post = (host: string, resolveHost = invocation) => fetchOutbound({ url: `http://${host}:${port}/hook`, method: 'POST', body: '{}' }, options({ resolveHost }));

    const answers = [await post('hooks.example.test'), await post('hooks.example.test'), await post('other.example.test')];
    await post('hooks.example.test', lookupsRememberedFor(dns));

    expect(answers.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(dns.calls).toEqual(['hooks.example.test', 'other.example.test', 'hooks.example.test']);
    expect(received).toHaveLength(4);
  });

  it('still checks the remembered answer on every request: a private address is refused each time', async () => {
    const dns = resolverOf({ 'internal.example.test': ['10.0.0.8'] });
    const invocation = lookupsRememberedFor(dns);
    const post = () => fetchOutbound({ url: `https://internal.example.test/hook`, method: 'POST', body: '{}' }, options({ policy: strict, resolveHost: invocation }));

    const failures = [await failureOf(post()), await failureOf(post())];

    expect(failures.map((failure) => failure.kind)).toEqual(['refused-address', 'refused-address']);
    expect(dns.calls).toEqual(['internal.example.test']);
    expect(received).toHaveLength(0);
  });

  it('does not remember a failed lookup', async () => {
    const dns = resolverOf({});
    const invocation = lookupsRememberedFor(dns);
    const post = () => fetchOutbound({ url: `http://missing.example.test:${port}/hook` }, options({ resolveHost: invocation }));

    const failures = [await failureOf(post()), await failureOf(post())];

    expect(failures.map((failure) => failure.kind)).toEqual(['dns', 'dns']);
    expect(dns.calls).toEqual(['missing.example.test', 'missing.example.test']);
  });
});
