import { Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { fetchOutbound, OutboundRequestError, type OutboundOptions } from '../../src/outbound/outbound-fetch.ts';
import { checkOutboundUrl } from '../../src/outbound/outbound-url.ts';
import { WebhookSender, type WebhookRequest } from '../../src/webhooks/webhook-sender.ts';
import { countingServer, type CountingServer } from '../support/counting-server.ts';
import { literalProbes, resolvedProbes } from '../support/ssrf-probes.ts';
import { localPolicy, rebindingResolver, resolverOf, strictPolicy } from '../support/stub-resolver.ts';
import { rejectionOf } from '../support/rejections.ts';

// The SSRF suite: every probe is refused, and no connection is opened for it. Two witnesses of "no
// connection": a spy on every socket's connect() in this process, and loopback listeners that count
// what they accept (probes that resolve are pointed at them). No traffic leaves 127.0.0.0/8.

const strict = strictPolicy;
const local = localPolicy;

function options(overrides: Partial<OutboundOptions> = {}): OutboundOptions {
  return { policy: strict, urlRules: { refuseFragment: true }, timeoutMs: 2_000, maxResponseBytes: 1_000, maxRedirects: 3, ...overrides };
}

const failureOf = (promise: Promise<unknown>) => rejectionOf(promise, OutboundRequestError);

let target: CountingServer;
let connectAttempts: ReturnType<typeof vi.spyOn>;

beforeAll(async () => {
  target = await countingServer('127.0.0.1');
});

beforeEach(() => {
  target.accepted.length = 0;
  connectAttempts = vi.spyOn(Socket.prototype, 'connect');
});

afterEach(() => {
  connectAttempts.mockRestore();
});

afterAll(async () => {
  await target.close();
});

describe('the witnesses', () => {
  it('see a connection the guard lets through', async () => {
    const resolver = resolverOf({ 'docs.example.test': ['127.0.0.1'] });

    const response = await fetchOutbound({ url: `http://docs.example.test:${target.port}/a.pdf` }, options({ policy: local, resolveHost: resolver }));

    expect(response.status).toBe(200);
    expect(connectAttempts).toHaveBeenCalledTimes(1);
    expect(target.accepted).toEqual(['127.0.0.1']);
  });
});

describe('literal probes', () => {
  it('cover at least 40 URLs', () => {
    expect(literalProbes.length + resolvedProbes.length).toBeGreaterThanOrEqual(40);
    expect(literalProbes.length).toBeGreaterThanOrEqual(40);
  });

  it.each(literalProbes)('refuses $kind ($url) from the URL text, as the API does with 422', ({ url, issue }) => {
    expect(checkOutboundUrl(url, { refuseFragment: true }, strict)).toEqual({ ok: false, issue });
  });

  it.each(literalProbes)('refuses to fetch $kind ($url) without opening a connection', async ({ url }) => {
    const failure = await failureOf(fetchOutbound({ url }, options()));

    expect(failure.kind).toBe('refused-url');
    expect(connectAttempts).not.toHaveBeenCalled();
  });
});

describe('probes a resolver has to judge', () => {
  it.each(resolvedProbes)('refuses $kind ($hostname → $addresses) without opening a connection', async ({ hostname, addresses }) => {
    const resolver = resolverOf({ [hostname]: addresses });
    const url = `https://${hostname}:${target.port}/a.pdf`;
    expect(checkOutboundUrl(url, { refuseFragment: true }, strict).ok).toBe(true);

    const failure = await failureOf(fetchOutbound({ url }, options({ resolveHost: resolver })));

    expect(failure.kind).toBe('refused-address');
    expect(failure.transient).toBe(false);
    expect(resolver.calls).toEqual([hostname]);
    expect(connectAttempts).not.toHaveBeenCalled();
    expect(target.accepted).toEqual([]);
  });
});

describe('DNS rebinding', () => {
  let rebound: CountingServer;

  beforeAll(async () => {
    // The address a second lookup would give, on the same port as the checked one.
    rebound = await countingServer('127.0.0.2', target.port);
  });

  afterAll(async () => {
    await rebound.close();
  });

  it('connects to the address it checked, never to the next answer', async () => {
    const resolver = rebindingResolver([['127.0.0.1'], ['127.0.0.2']]);

    const response = await fetchOutbound({ url: `http://rebind.example.test:${target.port}/a.pdf` }, options({ policy: local, resolveHost: resolver }));

    expect(response.status).toBe(200);
    expect(rebound.accepted).toEqual([]);
    expect(target.accepted).toEqual(['127.0.0.1']);
    expect(resolver.calls).toEqual(['rebind.example.test']);
  });

  it('checks the new answer again when a redirect comes back to the same name', async () => {
    const resolver = rebindingResolver([['127.0.0.1'], ['169.254.169.254']]);
    const redirecting = await countingServer('127.0.0.1', 0, () => ({ status: 302, location: '/again' }));
    try {
      const failure = await failureOf(
        fetchOutbound({ url: `http://rebind.example.test:${redirecting.port}/start` }, options({ policy: local, resolveHost: resolver })),
      );

      expect(failure.kind).toBe('refused-address');
      expect(resolver.calls).toEqual(['rebind.example.test', 'rebind.example.test']);
      expect(redirecting.accepted).toHaveLength(1);
      expect(connectAttempts).toHaveBeenCalledTimes(1);
    } finally {
      await redirecting.close();
    }
  });
});

describe('redirects to a private address', () => {
  let redirecting: CountingServer;
  let location = '';

  beforeAll(async () => {
    redirecting = await countingServer('127.0.0.1', 0, (path) => ({ status: Number(path.slice(1)), location }));
  });

  afterAll(async () => {
    await redirecting.close();
  });

  // With the local setting the loopback server is an allowed first hop, so the private targets here
  // are private even for that setting; the names resolve (stub) to such addresses.
  const privateTargets = [
    ['the metadata address', () => 'http://169.254.169.254/latest/meta-data/', 'refused-url'],
    ['the metadata address in decimal', () => 'http://2852039166/latest/meta-data/', 'refused-url'],
    ['an RFC 1918 address', () => `http://10.0.0.1:${target.port}/`, 'refused-url'],
    ['a unique-local IPv6 address', () => `http://[fd00::1]:${target.port}/`, 'refused-url'],
    ['a non-http scheme', () => 'file:///etc/passwd', 'refused-url'],
    ['a name resolving to the metadata address', () => `http://metadata.example.test:${target.port}/`, 'refused-address'],
  ] as const;
  const cases = [301, 302, 307].flatMap((status) => privateTargets.map(([what, locationOf, kind]) => ({ status, what, locationOf, kind })));

  it.each(cases)('refuses a $status to $what, which never sees a connection', async ({ status, locationOf, kind }) => {
    location = locationOf();
    const resolver = resolverOf({ 'public.example.test': ['127.0.0.1'], 'metadata.example.test': ['169.254.169.254'] });

    const failure = await failureOf(fetchOutbound({ url: `http://public.example.test:${redirecting.port}/${status}` }, options({ policy: local, resolveHost: resolver })));

    expect(failure.kind).toBe(kind);
    expect(redirecting.accepted).toHaveLength(1);
    expect(connectAttempts).toHaveBeenCalledTimes(1);
    redirecting.accepted.length = 0;
  });

});

describe('webhook attempts', () => {
  const noSignature = () => ({});
  const delivery = (endpointUrl: string): WebhookRequest => ({
    endpointUrl,
    body: '{}',
    eventId: 'evt_1',
    eventType: 'document-insights.extraction.completed',
    deliveryId: 'dlv_1',
    attempt: 1,
  });
  // Webhook endpoints ignore fragments (the API refuses them), so a fragment alone is no probe here.
  const senderProbes = literalProbes.filter(({ issue }) => issue !== 'must not contain a fragment');

  it.each(senderProbes)('records $kind ($url) as a blocked address without opening a connection', async ({ url }) => {
    const sender = new WebhookSender({ timeoutMs: 2_000, policy: () => strict, resolveHost: resolverOf({}) });

    const attempt = await sender.send(delivery(url), noSignature);

    expect(attempt).toMatchObject({ outcome: 'failed', responseStatus: null, error: { kind: 'blocked address' } });
    expect(connectAttempts).not.toHaveBeenCalled();
  });

  it.each(resolvedProbes)('records $kind ($hostname → $addresses) as a blocked address without opening a connection', async ({ hostname, addresses }) => {
    const sender = new WebhookSender({ timeoutMs: 2_000, policy: () => strict, resolveHost: resolverOf({ [hostname]: addresses }) });

    const attempt = await sender.send(delivery(`https://${hostname}:${target.port}/hooks`), noSignature);

    expect(attempt).toMatchObject({ outcome: 'failed', responseStatus: null, error: { kind: 'blocked address' } });
    expect(connectAttempts).not.toHaveBeenCalled();
    expect(target.accepted).toEqual([]);
  });

  it('does not follow a redirect to a private address', async () => {
    const redirecting = await countingServer('127.0.0.1', 0, () => ({ status: 307, location: `http://10.0.0.1:${target.port}/hooks` }));
    const sender = new WebhookSender({ timeoutMs: 2_000, policy: () => local, resolveHost: resolverOf({ 'hooks.example.test': ['127.0.0.1'] }) });
    try {
      const attempt = await sender.send(delivery(`http://hooks.example.test:${redirecting.port}/hooks`), noSignature);

      expect(attempt).toMatchObject({ outcome: 'failed', responseStatus: 307, error: { kind: 'redirect' } });
      expect(redirecting.accepted).toHaveLength(1);
      expect(connectAttempts).toHaveBeenCalledTimes(1);
    } finally {
      await redirecting.close();
    }
  });
});
