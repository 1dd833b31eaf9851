import type { ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createPaperflowClient } from '../../src/client/paperflow-client.ts';
import { verifyPaperflowWebhook } from '../../src/client/webhook-events.ts';
import { dynamoDocumentClient } from '../../src/infrastructure/dynamodb-client.ts';
import type { AttemptRecord, DeliveryRecord } from '../../src/webhooks/delivery-records.ts';
import { deliveryStore } from '../../src/composition/webhook-deliveries.ts';
import { subscriptionStore } from '../../src/composition/webhooks.ts';
import { invoicePdf } from '../support/extraction-documents.ts';
import { ExtractionClient, recordedEventsOf, workspaceKey } from '../support/extraction-client.ts';
import { startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { refusedConnectionUrl, startWebhookReceiver, type ReceivedWebhook, type RunningWebhookReceiver } from '../support/webhook-receiver.ts';

// Webhook delivery end to end: subscriptions created over HTTP, real extractions reaching COMPLETED,
// the events outbox handing them to the delivery queue, the manifest's consumer (run as Lambda's SQS
// event source mapping would) fanning out and POSTing to a real receiver on loopback. Delays are
// compressed (0,1,1,1,1,1 s), the webhook timeout is 1 s, a failed message comes back after 6 s.

const variables = {
  PAPERFLOW_ALLOW_PRIVATE_URLS: 'true',
  PAPERFLOW_WEBHOOK_RETRY_DELAYS: '0,1,1,1,1,1',
  PAPERFLOW_WEBHOOK_TIMEOUT_SECONDS: '1',
  PAPERFLOW_EVENT_OUTBOX_DRAIN_INTERVAL_SECONDS: '2',
  PAPERFLOW_DELIVERY_QUEUE_VISIBILITY_TIMEOUT_SECONDS: '6',
  PAPERFLOW_HELD_RELEASE_INTERVAL_SECONDS: '1',
  PAPERFLOW_HELD_RELEASE_GRACE_SECONDS: '1',
};

let stack: StackUnderTest;
let receiver: RunningWebhookReceiver;
let receiverUrl: string;
let closedPortUrl: string;
const received: ReceivedWebhook[] = [];
/** Per path, how the receiver answers its n-th request (0-based); a path without one answers 200. */
const answers = new Map<string, (request: ReceivedWebhook, index: number, response: ServerResponse) => void | Promise<void>>();
const stripe = new Stripe('sk_test_unused');
const completedType = 'document-insights.extraction.completed';

beforeAll(async () => {
  Object.assign(process.env, variables);
  receiver = await startWebhookReceiver((entry, response) => {
    const index = received.filter((earlier) => earlier.path === entry.path).length;
    received.push(entry);
    const answer = answers.get(entry.path) ?? ((_request, _index, reply) => void reply.writeHead(200).end('ok'));
    return answer(entry, index, response);
  });
  receiverUrl = receiver.url;
  closedPortUrl = await refusedConnectionUrl('/refused');
  stack = await startStackUnderTest();
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  for (const name of Object.keys(variables)) delete process.env[name];
});

const requestsTo = (path: string) => received.filter((request) => request.path === path);
const json = (method: string, body: unknown): RequestInit => ({ method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A workspace of its own per test, so deliveries and receivers never mix. */
async function aWorkspace(name: string): Promise<{ id: string; client: ExtractionClient }> {
  const id = `ws_hooks_${name}`;
  return { id, client: new ExtractionClient(stack, await workspaceKey(id)) };
}

async function subscribe(client: ExtractionClient, endpoint: string, overrides: Record<string, unknown> = {}): Promise<{ id: string; signingSecret: string }> {
  const endpointUrl = endpoint.startsWith('http') ? endpoint : `${receiverUrl}${endpoint}`;
  const created = await client.json('/event-subscriptions', json('POST', { name: endpoint, endpointUrl, eventTypes: [completedType], ...overrides }));
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

async function setStatus(client: ExtractionClient, subscriptionId: string, status: 'active' | 'paused'): Promise<void> {
  const updated = await client.json(`/event-subscriptions/${subscriptionId}`, json('PATCH', { status }));
  expect(updated.status, JSON.stringify(updated.body)).toBe(200);
}

let invoiceNumber = 0;
/** A real extraction to COMPLETED; its event is recorded and handed to the delivery queue. */
async function completeExtraction(client: ExtractionClient): Promise<string> {
  invoiceNumber += 1;
  const created = await client.upload(await invoicePdf({ invoiceNumber: `HOOK-${invoiceNumber}-${Date.now()}` }), 'invoice.pdf');
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  expect((await client.waitForTerminal(created.body.id, 60_000)).status).toBe('COMPLETED');
  return created.body.id;
}

async function eventIdOf(workspaceId: string, extractionId: string): Promise<string> {
  const [event] = await eventually(() => recordedEventsOf(workspaceId, extractionId), (events) => events.length === 1, 'recorded event');
  return event!.eventId as string;
}

async function deliveriesOf(eventId: string): Promise<DeliveryRecord[]> {
  return deliveryStore().listOfEvent(eventId);
}

async function attemptsOf(delivery: Pick<DeliveryRecord, 'eventId' | 'id'>): Promise<AttemptRecord[]> {
  return (await deliveryStore().recentAttempts(delivery, 100)).attempts;
}

/** The one delivery of the event once it ended (SUCCEEDED or FAILED). */
async function endedDelivery(eventId: string, timeoutMs = 30_000): Promise<DeliveryRecord> {
  const [delivery] = await eventually(
    () => deliveriesOf(eventId),
    (deliveries) => deliveries.length === 1 && deliveries[0]!.status !== 'PENDING',
    `delivery of ${eventId}`,
    timeoutMs,
  );
  return delivery!;
}

/** Delivers one event to a fresh subscription at `endpoint`; the first request's eventId. */
async function deliverTo(name: string, endpoint: string) {
  const { id: workspaceId, client } = await aWorkspace(name);
  const subscription = await subscribe(client, endpoint);
  const eventId = await eventIdOf(workspaceId, await completeExtraction(client));
  return { workspaceId, client, subscription, eventId };
}

describe('delivery of a recorded event', () => {
  it('reaches a receiver written with the typed client: created through it, verified by its helper, the event typed', async () => {
    const workspaceId = 'ws_hooks_typed_client';
    const api = createPaperflowClient({ apiUrl: stack.baseUrl, apiKey: await workspaceKey(workspaceId) });
    const created = await api.POST('/event-subscriptions', {
      body: { name: 'typed', endpointUrl: `${receiverUrl}/typed-client`, eventTypes: [completedType] },
    });
    expect(created.response.status, JSON.stringify(created.error)).toBe(201);
    const secret = created.data!.signingSecret;

    const eventId = await eventIdOf(workspaceId, await completeExtraction(new ExtractionClient(stack, await workspaceKey(workspaceId))));
    await endedDelivery(eventId);
    const [request] = requestsTo('/typed-client');
    const event = verifyPaperflowWebhook(request!.body, request!.headers, secret);

    expect(event.eventId).toBe(eventId);
    // The event type narrows the payload: an extraction event carries extractionId, not runId.
    if (event.eventType !== 'document-insights.extraction.completed') throw new Error(`unexpected ${event.eventType}`);
    expect(event.data.extractionId).toMatch(/^ext_/);
    expect(event.data.status).toBe('COMPLETED');
    expect(() => verifyPaperflowWebhook(request!.body, request!.headers, `${secret.slice(0, -2)}xx`)).toThrow(/signature/i);
    const listed = await api.GET('/event-subscriptions/{subscriptionId}', { params: { path: { subscriptionId: created.data!.id } } });
    expect(listed.data).toMatchObject({ id: created.data!.id, name: 'typed' });
    expect(listed.data).not.toHaveProperty('signingSecret');
  });

  it('POSTs the event to the subscription at once, signed so that both stock verifiers accept it', async () => {
    const { subscription, eventId } = await deliverTo('success', '/success');

    const delivery = await endedDelivery(eventId);
    const [request] = requestsTo('/success');
    const headers = Object.fromEntries(Object.entries(request!.headers).map(([name, value]) => [name, String(value)]));

    expect(delivery).toMatchObject({ status: 'SUCCEEDED', attemptCount: 1, subscriptionId: subscription.id, lastResponseStatus: 200 });
    expect(requestsTo('/success')).toHaveLength(1);
    expect(headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Paperflow-Webhooks/1',
      'x-paperflow-event-id': eventId,
      'x-paperflow-event-type': completedType,
      'x-paperflow-delivery-id': delivery.id,
      'x-paperflow-attempt': '1',
      'webhook-id': eventId,
      'webhook-timestamp': expect.stringMatching(/^\d+$/),
    });
    const body = JSON.parse(request!.body);
    expect(body).toMatchObject({ eventId, eventType: completedType, apiVersion: 'v1', data: expect.any(Object) });
    expect(stripe.webhooks.constructEvent(request!.body, headers['x-paperflow-signature']!, subscription.signingSecret)).toEqual(body);
    expect(new Webhook(subscription.signingSecret).verify(request!.body, headers)).toEqual(body);
    const [attempt] = await attemptsOf(delivery);
    expect(attempt).toMatchObject({ number: 1, outcome: 'succeeded', responseStatus: 200, error: null });
    expect(attempt!.requestHeaders['X-Paperflow-Signature']).toBe('[redacted]');
  });

  it('retries a 500 until the 200: four attempts with their statuses, the same eventId each time', async () => {
    answers.set('/flaky', (_request, index, response) => void response.writeHead(index < 3 ? 500 : 200).end());

    const { eventId } = await deliverTo('flaky', '/flaky');
    const delivery = await endedDelivery(eventId);

    expect(delivery).toMatchObject({ status: 'SUCCEEDED', attemptCount: 4, lastResponseStatus: 200 });
    expect((await attemptsOf(delivery)).map((attempt) => [attempt.number, attempt.responseStatus, attempt.outcome])).toEqual([
      [1, 500, 'failed'],
      [2, 500, 'failed'],
      [3, 500, 'failed'],
      [4, 200, 'succeeded'],
    ]);
    expect(requestsTo('/flaky').map((request) => request.headers['x-paperflow-attempt'])).toEqual(['1', '2', '3', '4']);
    expect(new Set(requestsTo('/flaky').map((request) => request.headers['webhook-id']))).toEqual(new Set([eventId]));
  });

  it('records a receiver that does not answer in time as a timeout', async () => {
    answers.set('/silent', () => undefined);

    const { eventId } = await deliverTo('timeout', '/silent');
    const [delivery] = await eventually(() => deliveriesOf(eventId), (deliveries) => deliveries[0]?.attemptCount === 1, 'first attempt');
    const [attempt] = await attemptsOf(delivery!);

    expect(attempt).toMatchObject({ outcome: 'failed', responseStatus: null, error: { kind: 'timeout' } });
  });

  it('records a refused connection as a failed attempt', async () => {
    const { eventId } = await deliverTo('refused', closedPortUrl);
    const [delivery] = await eventually(() => deliveriesOf(eventId), (deliveries) => deliveries[0]?.attemptCount === 1, 'first attempt');

    expect((await attemptsOf(delivery!))[0]).toMatchObject({ outcome: 'failed', error: { kind: 'connection refused' } });
  });

  it('does not follow a 301: the attempt fails and the new location is never called', async () => {
    answers.set('/moved', (_request, _index, response) => void response.writeHead(301, { location: `${receiverUrl}/moved-here` }).end());

    const { eventId } = await deliverTo('redirect', '/moved');
    const [delivery] = await eventually(() => deliveriesOf(eventId), (deliveries) => deliveries[0]?.attemptCount === 1, 'first attempt');

    expect((await attemptsOf(delivery!))[0]).toMatchObject({ outcome: 'failed', responseStatus: 301, error: { kind: 'redirect' } });
    expect(requestsTo('/moved-here')).toEqual([]);
  });

  it('gives up after six failures: FAILED, and no seventh request', async () => {
    answers.set('/always-failing', (_request, _index, response) => void response.writeHead(503).end());

    const { eventId } = await deliverTo('failing', '/always-failing');
    const delivery = await endedDelivery(eventId);
    await pause(3_000);

    expect(delivery).toMatchObject({ status: 'FAILED', attemptCount: 6, nextAttemptAt: null });
    expect(await attemptsOf(delivery)).toHaveLength(6);
    expect(requestsTo('/always-failing')).toHaveLength(6);
  });

  it('shows the first attempt as pending in the delivery detail and the event\'s list while its POST is in flight, then its one outcome', async () => {
    const { id: workspaceId, client } = await aWorkspace('in_flight');
    let whileInFlight: { status: number; body: any } | undefined;
    let listedInFlight: { status: number; body: any } | undefined;
    let subscriptionEventsInFlight: { status: number; body: any } | undefined;
    answers.set('/in-flight', async (request, _index, response) => {
      // Read over the API while this POST waits for its answer: the event's first fan-out has not
      // written the delivery yet (its settle is its one write), and the claim item shows it in flight.
      const eventId = String(request.headers['x-paperflow-event-id']);
      whileInFlight = await client.json(`/events/${eventId}/deliveries/${String(request.headers['x-paperflow-delivery-id'])}`);
      listedInFlight = await client.json(`/events/${eventId}/deliveries`);
      subscriptionEventsInFlight = await client.json(`/events?subscriptionId=${subscriptionId}`);
      response.writeHead(200).end('ok');
    });
    const { id: subscriptionId } = await subscribe(client, '/in-flight');

    const eventId = await eventIdOf(workspaceId, await completeExtraction(client));
    const delivery = await endedDelivery(eventId);
    const afterwards = await client.json(`/events/${eventId}/deliveries/${delivery.id}`);

    expect(whileInFlight).toMatchObject({ status: 200, body: { id: delivery.id, status: 'PENDING', attemptCount: 0 } });
    expect(whileInFlight!.body.attempts).toEqual([expect.objectContaining({ number: 1, outcome: 'pending', responseStatus: null })]);
    expect(listedInFlight).toMatchObject({ status: 200, body: { data: [{ id: delivery.id, status: 'PENDING', attemptCount: 0 }] } });
    // The subscription's event list too, before the delivery is in the subscription's deliveries index.
    expect(subscriptionEventsInFlight).toMatchObject({ status: 200, body: { data: [{ eventId, deliverySummary: { total: 1, pending: 1 } }] } });
    expect(afterwards.body).toMatchObject({ status: 'SUCCEEDED', attemptCount: 1 });
    expect(afterwards.body.attempts).toEqual([expect.objectContaining({ number: 1, outcome: 'succeeded', responseStatus: 200 })]);
  });

  it('sends again after a consumer stopped between the POST and the record: one recorded outcome, the same eventId', async () => {
    // The consumer stops after its first POST, before anything records it: every write that would
    // record attempt 1 of this delivery fails (the stack runs in this process, on the same SDK
    // client) until the receiver sees the attempt again. For the fan-out's own attempt 1 the hand-off
    // then fails and comes back; its second fan-out finds the delivery still at attemptCount 0 and
    // queues attempt 1, whose POST is recorded once.
    const stopped = new Set<string>();
    const middlewareName = 'stopBeforeTheRecord';
    dynamoDocumentClient().middlewareStack.add(
      (next) => async (args) => {
        const input = JSON.stringify(args.input);
        for (const deliveryId of stopped) {
          if (input.includes(`DELIVERY#${deliveryId}`) && input.includes('attempt0001')) throw new Error('The consumer stopped before recording the outcome.');
        }
        return next(args);
      },
      { step: 'initialize', name: middlewareName },
    );
    onTestFinished(() => void dynamoDocumentClient().middlewareStack.remove(middlewareName));
    answers.set('/crash', async (request, index, response) => {
      const deliveryId = String(request.headers['x-paperflow-delivery-id']);
      if (index === 0) stopped.add(deliveryId);
      else stopped.delete(deliveryId);
      response.writeHead(200).end('r'.repeat(5_000));
    });

    const { eventId } = await deliverTo('crash', '/crash');
    const delivery = await endedDelivery(eventId, 45_000);

    expect(delivery).toMatchObject({ status: 'SUCCEEDED', attemptCount: 1 });
    const attempts = await attemptsOf(delivery);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ number: 1, outcome: 'succeeded', responseStatus: 200 });
    expect(requestsTo('/crash')).toHaveLength(2);
    expect(requestsTo('/crash').map((request) => [request.headers['webhook-id'], request.headers['x-paperflow-attempt']])).toEqual([
      [eventId, '1'],
      [eventId, '1'],
    ]);
  });
});

describe('paused subscriptions', () => {
  it('holds the attempt that falls due while paused, and the resume releases it', async () => {
    let pausedAfterFirst: Promise<void> | undefined;
    const { id: workspaceId, client } = await aWorkspace('resume');
    const subscription = await subscribe(client, '/resume');
    answers.set('/resume', (_request, index, response) => {
      // The first attempt fails and the subscription is paused before the second falls due (1 s).
      if (index === 0) pausedAfterFirst = setStatus(client, subscription.id, 'paused').then(() => void response.writeHead(500).end());
      else response.writeHead(200).end();
    });
    const eventId = await eventIdOf(workspaceId, await completeExtraction(client));

    const [held] = await eventually(() => deliveriesOf(eventId), (deliveries) => deliveries[0]?.heldAttempt === 2, 'held second attempt');
    await pausedAfterFirst;
    await pause(1_500);
    expect(requestsTo('/resume')).toHaveLength(1);
    expect(held).toMatchObject({ status: 'PENDING', attemptCount: 1 });

    await setStatus(client, subscription.id, 'active');
    const delivery = await endedDelivery(eventId);

    expect(delivery).toMatchObject({ status: 'SUCCEEDED', attemptCount: 2 });
    expect(delivery.heldAttempt).toBeUndefined();
    expect(requestsTo('/resume').map((request) => request.headers['x-paperflow-attempt'])).toEqual(['1', '2']);
  });

  it('releases held attempts through the sweeper when the resume stopped before its release', async () => {
    const { id: workspaceId, client } = await aWorkspace('sweeper');
    const subscription = await subscribe(client, '/swept');
    answers.set('/swept', (_request, index, response) => {
      if (index === 0) void setStatus(client, subscription.id, 'paused').then(() => void response.writeHead(500).end());
      else response.writeHead(200).end();
    });
    const eventId = await eventIdOf(workspaceId, await completeExtraction(client));
    await eventually(() => deliveriesOf(eventId), (deliveries) => deliveries[0]?.heldAttempt === 2, 'held second attempt');

    // The PATCH's own write (status and resume mark), then a crash: its inline release never runs.
    await subscriptionStore().update(workspaceId, subscription.id, { status: 'active' }, new Date().toISOString());
    const delivery = await endedDelivery(eventId);

    expect(delivery).toMatchObject({ status: 'SUCCEEDED', attemptCount: 2 });
    expect(requestsTo('/swept')).toHaveLength(2);
  });

  it('makes no delivery to a paused subscription, nor to another workspace, and still records the event', async () => {
    const { id: workspaceId, client } = await aWorkspace('paused');
    const other = await aWorkspace('other');
    await subscribe(client, '/active-here');
    const paused = await subscribe(client, '/paused-here');
    await setStatus(client, paused.id, 'paused');
    await subscribe(other.client, '/other-workspace');

    const eventId = await eventIdOf(workspaceId, await completeExtraction(client));
    const delivery = await endedDelivery(eventId);
    await pause(1_000);

    expect(delivery.status).toBe('SUCCEEDED');
    expect(await deliveriesOf(eventId)).toHaveLength(1);
    expect(requestsTo('/active-here')).toHaveLength(1);
    expect(requestsTo('/paused-here')).toEqual([]);
    expect(requestsTo('/other-workspace')).toEqual([]);
  });
});

/** The request's headers as the stock verifiers take them. */
const headersOf = (request: ReceivedWebhook) => Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));

/** Whether each stock verifier accepts the request under `secret`. */
function verifiedBy(request: ReceivedWebhook, secret: string): { stripe: boolean; standardWebhooks: boolean } {
  const headers = headersOf(request);
  const accepts = (verify: () => unknown) => {
    try {
      verify();
      return true;
    } catch {
      return false;
    }
  };
  return {
    stripe: accepts(() => stripe.webhooks.constructEvent(request.body, headers['x-paperflow-signature']!, secret)),
    standardWebhooks: accepts(() => new Webhook(secret).verify(request.body, headers)),
  };
}

const both = { stripe: true, standardWebhooks: true };
const neither = { stripe: false, standardWebhooks: false };

describe('signing secret rotation', () => {
  const rotate = (client: ExtractionClient, subscriptionId: string, body: unknown = {}) => client.json(`/event-subscriptions/${subscriptionId}/rotate-secret`, json('POST', body));

  it('signs with the old and the new secret during the overlap: both stock verifiers accept either', async () => {
    const { id: workspaceId, client } = await aWorkspace('rotation_overlap');
    const subscription = await subscribe(client, '/rotation-overlap');
    const rotated = await rotate(client, subscription.id);
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);

    const eventId = await eventIdOf(workspaceId, await completeExtraction(client));
    const delivery = await endedDelivery(eventId);
    const [request] = requestsTo('/rotation-overlap');

    expect(delivery.status).toBe('SUCCEEDED');
    expect(headersOf(request!)['x-paperflow-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(headersOf(request!)['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    expect(verifiedBy(request!, rotated.body.signingSecret)).toEqual(both);
    expect(verifiedBy(request!, subscription.signingSecret)).toEqual(both);
  });

  it('signs with the new secret only once the overlap is over, and then removes the old one from the record', async () => {
    const { id: workspaceId, client } = await aWorkspace('rotation_after');
    const subscription = await subscribe(client, '/rotation-after');
    // 0.001 h: the overlap ends 3.6 s after the rotation.
    const rotated = await rotate(client, subscription.id, { overlapHours: 0.001 });
    const expiresAt = Date.parse(rotated.body.previousSecretExpiresAt);
    await eventually(async () => Date.now(), (now) => now > expiresAt, 'the end of the overlap');

    const eventId = await eventIdOf(workspaceId, await completeExtraction(client));
    await endedDelivery(eventId);
    const [request] = requestsTo('/rotation-after');

    expect(headersOf(request!)['x-paperflow-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifiedBy(request!, rotated.body.signingSecret)).toEqual(both);
    expect(verifiedBy(request!, subscription.signingSecret)).toEqual(neither);
    expect((await subscriptionStore().getForDelivery(workspaceId, subscription.id))?.previousSecret).toBeUndefined();
  });

  it('replaces the previous secret when rotated twice within an overlap: the first stops signing at once', async () => {
    const { id: workspaceId, client } = await aWorkspace('rotation_twice');
    const subscription = await subscribe(client, '/rotation-twice');
    const second = await rotate(client, subscription.id);
    const third = await rotate(client, subscription.id);

    const eventId = await eventIdOf(workspaceId, await completeExtraction(client));
    await endedDelivery(eventId);
    const [request] = requestsTo('/rotation-twice');

    expect(verifiedBy(request!, third.body.signingSecret)).toEqual(both);
    expect(verifiedBy(request!, second.body.signingSecret)).toEqual(both);
    expect(verifiedBy(request!, subscription.signingSecret)).toEqual(neither);
  });

  it('never writes a secret to the attempt record: both signature headers are redacted', async () => {
    const { id: workspaceId, client } = await aWorkspace('rotation_redacted');
    const subscription = await subscribe(client, '/rotation-redacted');
    const rotated = await rotate(client, subscription.id);

    const eventId = await eventIdOf(workspaceId, await completeExtraction(client));
    const delivery = await endedDelivery(eventId);
    const detail = await client.json(`/events/${eventId}/deliveries/${delivery.id}`);

    expect(detail.body.attempts[0].requestHeaders).toMatchObject({ 'X-Paperflow-Signature': '[redacted]', 'webhook-signature': '[redacted]' });
    for (const secret of [subscription.signingSecret, rotated.body.signingSecret]) expect(JSON.stringify(detail.body)).not.toContain(secret.slice(6, 30));
  });
});

describe('recover of failed deliveries', () => {
  const recover = (client: ExtractionClient, subscriptionId: string, since: string) => client.json(`/event-subscriptions/${subscriptionId}/recover`, json('POST', { since }));

  it('sends each delivery that ended FAILED since the time once more, once, after the receiver healed', async () => {
    let healed = false;
    answers.set('/recovering', (_request, _index, response) => void response.writeHead(healed ? 200 : 503).end());
    const { id: workspaceId, client } = await aWorkspace('recover');
    const subscription = await subscribe(client, '/recovering');
    const since = new Date().toISOString();
    const eventIds = [];
    for (let count = 0; count < 2; count += 1) eventIds.push(await eventIdOf(workspaceId, await completeExtraction(client)));
    for (const eventId of eventIds) expect(await endedDelivery(eventId)).toMatchObject({ status: 'FAILED', attemptCount: 6 });
    expect(requestsTo('/recovering')).toHaveLength(12);

    healed = true;
    const laterThanTheFailures = await recover(client, subscription.id, new Date().toISOString());
    const first = await recover(client, subscription.id, since);
    const repeated = await recover(client, subscription.id, since);
    const resent = await eventually(async () => requestsTo('/recovering').slice(12), (requests) => requests.length >= 2, 'the recovered deliveries');
    const deliveries = await Promise.all(
      eventIds.map((eventId) => eventually(() => deliveriesOf(eventId), (all) => all.length === 2 && all.every((one) => one.status !== 'PENDING'), `deliveries of ${eventId}`)),
    );
    const afterwards = await recover(client, subscription.id, since);

    expect(laterThanTheFailures).toEqual({ status: 202, body: { recovered: 0, hasMore: false } });
    expect(first).toEqual({ status: 202, body: { recovered: 2, hasMore: false } });
    expect(repeated.body).toEqual({ recovered: 0, hasMore: false });
    expect(afterwards.body).toEqual({ recovered: 0, hasMore: false });
    expect(resent.map((request) => request.headers['webhook-id']).sort()).toEqual([...eventIds].sort());
    expect(resent.map((request) => request.headers['x-paperflow-attempt'])).toEqual(['1', '1']);
    for (const request of resent) expect(verifiedBy(request, subscription.signingSecret)).toEqual(both);
    for (const [automatic, recovery] of deliveries) {
      expect(automatic).toMatchObject({ trigger: 'automatic', status: 'FAILED' });
      expect(recovery).toMatchObject({ trigger: 'manual', status: 'SUCCEEDED', attemptCount: 1, maxAttempts: 1 });
    }
    expect(requestsTo('/recovering')).toHaveLength(14);
  }, 90_000);
});
