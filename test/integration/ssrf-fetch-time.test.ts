import { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DeliveryRecord } from '../../src/webhooks/delivery-records.ts';
import { deliveryStore } from '../../src/composition/webhook-deliveries.ts';
import type { HostResolver } from '../../src/outbound/outbound-fetch.ts';
import { countingServer, type CountingServer } from '../support/counting-server.ts';
import { invoicePdf } from '../support/extraction-documents.ts';
import { ExtractionClient, recordedEventsOf, workspaceKey } from '../support/extraction-client.ts';
import { startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { rebindingResolver, resolverOf } from '../support/stub-resolver.ts';

// SSRF cases that need a first hop the guard allows: DNS rebinding (a name answering a public address
// first and a private one next) and redirects to private addresses, at fetch time (document URLs) and
// at send time (webhooks). The stack runs with PAPERFLOW_ALLOW_PRIVATE_URLS=true so that a loopback
// server stands in for the public host (as in the unit suite); the private targets here stay refused
// under that setting. Witnesses of "no connection": the loopback server counts what it accepts, and a
// spy on every socket's connect() in this process (the stack runs in it) shows no other outbound one.

const publicHost = '127.0.0.1';
const privateTargets = ['169.254.169.254', '10.0.0.1', 'fd00:ec2::254'];

let stack: StackUnderTest;
let server: CountingServer;
let pdf: Buffer;
/** Per host name, how the stack's DNS answers; a name without one does not exist. */
const resolvers = new Map<string, HostResolver>();
const connects: string[] = [];

beforeAll(async () => {
  process.env.PAPERFLOW_ALLOW_PRIVATE_URLS = 'true';
  pdf = await invoicePdf({ invoiceNumber: 'SSRF-REBIND-1' });
  server = await countingServer(publicHost, 0, (path) => {
    if (path === '/doc.pdf') return { status: 200, body: pdf, contentType: 'application/pdf' };
    if (path === '/same-name-again') return { status: 302, location: '/doc.pdf' };
    if (path.startsWith('/to/')) return { status: 302, location: decodeURIComponent(path.slice('/to/'.length)) };
    return { status: 200 };
  });
  const originalConnect = Socket.prototype.connect;
  vi.spyOn(Socket.prototype, 'connect').mockImplementation(function (this: Socket, ...args: unknown[]) {
    // net.createConnection hands connect() its normalised [options, callback] pair.
    const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
    const target = first as { host?: string; port?: number } | undefined;
    if (target && typeof target === 'object' && target.host !== undefined) connects.push(`${target.host}:${target.port}`);
    return (originalConnect as (...connectArgs: unknown[]) => Socket).apply(this, args);
  });
  stack = await startStackUnderTest({
    resolveHost: (hostname) => {
      const resolver = resolvers.get(hostname);
      return resolver ? resolver(hostname) : Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }));
    },
  });
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  await server?.close();
  vi.restoreAllMocks();
  delete process.env.PAPERFLOW_ALLOW_PRIVATE_URLS;
});

const post = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const connectsTo = (host: string) => connects.filter((target) => target.startsWith(`${host}:`));

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function expectNoConnectionToPrivateTargets(): void {
  for (const target of privateTargets) expect(connects.filter((connect) => connect.includes(target)), target).toEqual([]);
}

describe('document URLs, at fetch time', () => {
  it('connect to the first answer checked, and refuse the private second answer of the same name (rebinding)', async () => {
    const client = new ExtractionClient(stack, await workspaceKey('ws_ssrf_rebind'));
    const resolver = rebindingResolver([[publicHost], ['169.254.169.254']], 'flip.example.test');
    resolvers.set('flip.example.test', resolver);
    const url = `http://flip.example.test:${server.port}/doc.pdf`;

    const first = await client.create({ document: { url } });
    const firstEnded = await client.waitForTerminal(first.body.id, 60_000);
    const second = await client.create({ document: { url } });
    const secondEnded = await client.waitForTerminal(second.body.id, 60_000);

    expect(firstEnded.error?.message ?? '').not.toMatch(/Downloading the document failed/);
    expect(secondEnded).toMatchObject({
      status: 'FAILED',
      error: { code: 'DOCUMENT_EXTRACTION_FAILED', message: 'Downloading the document failed: The host flip.example.test could not be resolved to a public address.' },
    });
    expect(resolver.calls).toEqual(['flip.example.test', 'flip.example.test']);
    expect(server.requested.filter((path) => path === '/doc.pdf')).toHaveLength(1);
    expect(connectsTo('flip.example.test')).toHaveLength(1);
    expectNoConnectionToPrivateTargets();
  });

  it('checks the name again on a redirect back to it, and refuses the rebound answer without connecting', async () => {
    const client = new ExtractionClient(stack, await workspaceKey('ws_ssrf_rebind_redirect'));
    const resolver = rebindingResolver([[publicHost], ['10.0.0.1']], 'bounce.example.test');
    resolvers.set('bounce.example.test', resolver);
    const accepted = server.accepted.length;

    const created = await client.create({ document: { url: `http://bounce.example.test:${server.port}/same-name-again` } });
    const ended = await client.waitForTerminal(created.body.id, 60_000);

    expect(ended).toMatchObject({
      status: 'FAILED',
      error: { message: 'Downloading the document failed: The host bounce.example.test could not be resolved to a public address.' },
    });
    expect(resolver.calls).toEqual(['bounce.example.test', 'bounce.example.test']);
    expect(server.accepted.length - accepted).toBe(1);
    expect(connectsTo('bounce.example.test')).toHaveLength(1);
    expectNoConnectionToPrivateTargets();
  });

  const redirectTargets = [
    ['the metadata address', 'http://169.254.169.254/latest/meta-data/', 'The URL must not point to a private, loopback or reserved address.'],
    ['the metadata address in decimal', 'http://2852039166/latest/meta-data/', 'The URL must not point to a private, loopback or reserved address.'],
    ['the IPv6 metadata address', 'http://[fd00:ec2::254]/latest/meta-data/', 'The URL must not point to a private, loopback or reserved address.'],
    ['an RFC 1918 address', 'http://10.0.0.1/a.pdf', 'The URL must not point to a private, loopback or reserved address.'],
    ['a name resolving to the metadata address', 'http://metadata.example.test/latest/meta-data/', 'The host metadata.example.test could not be resolved to a public address.'],
    ['a file URL', 'file:///etc/passwd', 'The URL must use https.'],
  ] as const;

  it.each(redirectTargets)('refuses a redirect to %s, which never sees a connection', async (_what, location, message) => {
    resolvers.set('metadata.example.test', resolverOf({ 'metadata.example.test': ['169.254.169.254'] }));
    const client = new ExtractionClient(stack, await workspaceKey('ws_ssrf_redirect'));

    const created = await client.create({ document: { url: `http://${publicHost}:${server.port}/to/${encodeURIComponent(location)}` } });
    expect(created.status).toBe(202);
    const ended = await client.waitForTerminal(created.body.id, 60_000);

    expect(ended).toMatchObject({ status: 'FAILED', error: { code: 'DOCUMENT_EXTRACTION_FAILED', message: `Downloading the document failed: ${message}` } });
    expect(connectsTo('metadata.example.test')).toEqual([]);
    expectNoConnectionToPrivateTargets();
  });
});

describe('webhook endpoints, at send time', () => {
  const failedType = 'document-insights.extraction.failed';

  /** One failed extraction (its URL names no host) records one event for the workspace's subscriptions. */
  async function deliveryOfNextEvent(workspaceId: string, client: ExtractionClient): Promise<DeliveryRecord> {
    const created = await client.create({ document: { url: 'http://nowhere.example.test/a.pdf' } });
    expect((await client.waitForTerminal(created.body.id, 60_000)).status).toBe('FAILED');
    const [event] = await eventually(() => recordedEventsOf(workspaceId, created.body.id), (events) => events.length === 1, 'failed event');
    const [delivery] = await eventually(
      () => deliveryStore().listOfEvent(event!.eventId as string),
      (deliveries: DeliveryRecord[]) => deliveries.length === 1 && deliveries[0]!.attemptCount >= 1,
      'first attempt',
    );
    return delivery!;
  }

  async function firstAttemptOf(delivery: DeliveryRecord) {
    return (await deliveryStore().recentAttempts(delivery, 10)).attempts.find((attempt) => attempt.number === 1);
  }

  it('delivers to the first answer, and records the rebound private answer as a blocked attempt without connecting', async () => {
    const workspaceId = 'ws_ssrf_hook_rebind';
    const client = new ExtractionClient(stack, await workspaceKey(workspaceId));
    const resolver = rebindingResolver([[publicHost], ['169.254.169.254']], 'hooks.example.test');
    resolvers.set('hooks.example.test', resolver);
    const subscribed = await client.json('/event-subscriptions', post({ name: 'Rebinding', endpointUrl: `http://hooks.example.test:${server.port}/hook`, eventTypes: [failedType] }));
    expect(subscribed.status).toBe(201);

    const first = await deliveryOfNextEvent(workspaceId, client);
    const second = await deliveryOfNextEvent(workspaceId, client);

    expect(await firstAttemptOf(first)).toMatchObject({ outcome: 'succeeded', responseStatus: 200 });
    expect(await firstAttemptOf(second)).toMatchObject({ outcome: 'failed', responseStatus: null, error: { kind: 'blocked address' } });
    expect(server.requested.filter((path) => path === '/hook')).toHaveLength(1);
    expect(connectsTo('hooks.example.test')).toHaveLength(1);
    expectNoConnectionToPrivateTargets();
  });

  it('records a redirect to the metadata address as a failed attempt and does not follow it', async () => {
    const workspaceId = 'ws_ssrf_hook_redirect';
    const client = new ExtractionClient(stack, await workspaceKey(workspaceId));
    const location = encodeURIComponent('http://169.254.169.254/latest/meta-data/');
    const subscribed = await client.json('/event-subscriptions', post({ name: 'Redirect', endpointUrl: `http://${publicHost}:${server.port}/to/${location}`, eventTypes: [failedType] }));
    expect(subscribed.status).toBe(201);

    const delivery = await deliveryOfNextEvent(workspaceId, client);

    expect(await firstAttemptOf(delivery)).toMatchObject({ outcome: 'failed', responseStatus: 302, error: { kind: 'redirect' } });
    expectNoConnectionToPrivateTargets();
  });
});
