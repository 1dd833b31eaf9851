import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AttemptRecord, DeliveryRecord } from '../../src/webhooks/delivery-records.ts';
import { deliveryStore } from '../../src/composition/webhook-deliveries.ts';
import { countingServer, type CountingServer } from '../support/counting-server.ts';
import { ExtractionClient, recordedEventsOf, workspaceKey } from '../support/extraction-client.ts';
import { startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { aimedAt, literalProbes, resolvedProbes } from '../support/ssrf-probes.ts';
import { resolverOf } from '../support/stub-resolver.ts';

// The SSRF probes against the two operations that take an outbound URL, on a stack with the deployed
// policy (no PAPERFLOW_ALLOW_PRIVATE_URLS): https only, public addresses only.
// - Probes refused from their text: 422 naming the field, nothing created.
// - Probes only DNS can judge (the stack's resolver is a stub answering from `resolvedProbes`):
//   accepted, then refused when the document is fetched (the extraction ends FAILED with the guard's
//   message) or when the webhook is sent (an attempt recorded as "blocked address").
// Every probe is aimed at a trap listener on this machine (its port added to the URL, and every
// resolved name's port), so a connection the guard let through would be counted there: none is.
// Rebinding and redirects, which need a reachable first hop, are in ssrf-fetch-time.test.ts.

let stack: StackUnderTest;
let client: ExtractionClient;
let trap: CountingServer;
const resolver = resolverOf(Object.fromEntries(resolvedProbes.map((probe) => [probe.hostname.replace(/\.$/, ''), probe.addresses])));

const post = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const failedType = 'document-insights.extraction.failed';

beforeAll(async () => {
  delete process.env.PAPERFLOW_ALLOW_PRIVATE_URLS;
  trap = await countingServer('127.0.0.1');
  stack = await startStackUnderTest({ resolveHost: (hostname) => resolver(hostname.replace(/\.$/, '')) });
  client = new ExtractionClient(stack, await workspaceKey('ws_ssrf'));
});

afterAll(async () => {
  await stack?.stop();
  await trap?.close();
});

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('probes refused from their text', () => {
  it('number at least 40', () => {
    expect(literalProbes.length).toBeGreaterThanOrEqual(40);
  });

  describe('POST /document-insights/extractions', () => {
    it.each(literalProbes)('refuses $kind ($url) on document.url with 422', async ({ url, issue }) => {
      const response = await client.create({ document: { url: aimedAt(url, trap.port) } });

      expect(response.status).toBe(422);
      expect(response.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: 'document.url', issue: `The URL ${issue}.` }] });
    });

    it('created no extraction for any of them', async () => {
      const listed = await client.json('/document-insights/extractions');

      expect(listed.status).toBe(200);
      expect(listed.body.data).toEqual([]);
    });
  });

  describe('POST /event-subscriptions', () => {
    it.each(literalProbes)('refuses $kind ($url) on endpointUrl with 422', async ({ url, issue }) => {
      const response = await client.json('/event-subscriptions', post({ name: 'Probe', endpointUrl: aimedAt(url, trap.port), eventTypes: [failedType] }));

      expect(response.status).toBe(422);
      expect(response.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: 'endpointUrl', issue }] });
    });

    it('created no subscription for any of them', async () => {
      const listed = await client.json('/event-subscriptions');

      expect(listed.status).toBe(200);
      expect(listed.body.data).toEqual([]);
    });
  });

  it('opened no connection to the trap', () => {
    expect(trap.accepted).toEqual([]);
  });
});

describe('probes only DNS can judge', () => {
  const urlOf = (hostname: string, path: string) => `https://${hostname}:${trap.port}${path}`;

  it('end each extraction FAILED when the document is fetched, with the guard\'s message and no connection', async () => {
    const workspace = new ExtractionClient(stack, await workspaceKey('ws_ssrf_fetch'));
    const created = await Promise.all(resolvedProbes.map((probe) => workspace.create({ document: { url: urlOf(probe.hostname, '/a.pdf') } })));
    for (const response of created) expect(response.status, JSON.stringify(response.body)).toBe(202);

    const ended = await Promise.all(created.map((response) => workspace.waitForTerminal(response.body.id, 60_000)));

    ended.forEach((extraction, index) => {
      const { hostname } = resolvedProbes[index]!;
      expect(extraction, resolvedProbes[index]!.kind).toMatchObject({
        status: 'FAILED',
        error: { code: 'DOCUMENT_EXTRACTION_FAILED', message: `Downloading the document failed: The host ${hostname} could not be resolved to a public address.` },
      });
    });
    // The guard, not something before it, refused them: each name was looked up, then not connected to.
    for (const probe of resolvedProbes) expect(resolver.calls).toContain(probe.hostname.replace(/\.$/, ''));
    expect(trap.accepted).toEqual([]);
  });

  it('record each webhook attempt to them as refused ("blocked address"), with no connection', async () => {
    const workspaceId = 'ws_ssrf_hooks';
    const workspace = new ExtractionClient(stack, await workspaceKey(workspaceId));
    const subscriptions = await Promise.all(
      resolvedProbes.map((probe) => workspace.json('/event-subscriptions', post({ name: probe.kind, endpointUrl: urlOf(probe.hostname, '/hook'), eventTypes: [failedType] }))),
    );
    for (const response of subscriptions) expect(response.status, JSON.stringify(response.body)).toBe(201);

    // One failed extraction (its URL is a probe too) records one event, fanned out to every subscription.
    const extraction = await workspace.create({ document: { url: urlOf(resolvedProbes[0]!.hostname, '/a.pdf') } });
    expect((await workspace.waitForTerminal(extraction.body.id, 60_000)).status).toBe('FAILED');
    const [event] = await eventually(() => recordedEventsOf(workspaceId, extraction.body.id), (events) => events.length === 1, 'failed event');
    const deliveries = await eventually(
      () => deliveryStore().listOfEvent(event!.eventId as string),
      (listed: DeliveryRecord[]) => listed.length === resolvedProbes.length && listed.every((delivery) => delivery.attemptCount >= 1),
      'first attempts',
    );

    const bySubscription = new Map(deliveries.map((delivery) => [delivery.subscriptionId, delivery]));
    for (const [index, response] of subscriptions.entries()) {
      const delivery = bySubscription.get(response.body.id)!;
      const attempts: AttemptRecord[] = (await deliveryStore().recentAttempts(delivery, 10)).attempts;
      const first = attempts.find((attempt) => attempt.number === 1);
      expect(first, resolvedProbes[index]!.kind).toMatchObject({ outcome: 'failed', responseStatus: null, error: { kind: 'blocked address' } });
    }
    expect(trap.accepted).toEqual([]);
  });
});
