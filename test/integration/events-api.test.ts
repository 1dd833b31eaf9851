import { HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventEnvelope, EventType } from '../../src/events/event-envelope.ts';
import { DynamoEventRecords } from '../../src/events/aws/dynamodb-event-records.ts';
import { EventRecorder, eventPayloadObjectKey } from '../../src/events/event-recorder.ts';
import { dynamoDocumentClient } from '../../src/infrastructure/dynamodb-client.ts';
import { newIdentifier } from '../../src/infrastructure/identifiers.ts';
import { s3Client } from '../../src/infrastructure/s3-client.ts';
import type { DeliveryAttempts } from '../../src/webhooks/delivery-attempts.ts';
import { automaticDeliveryId, manualDeliveryId, type DeliveryRecord, type DeliveryStatus } from '../../src/webhooks/delivery-records.ts';
import { deliveryStore } from '../../src/composition/webhook-deliveries.ts';
import { attemptAttribute, type DynamoDeliveryStore } from '../../src/webhooks/aws/dynamodb-delivery-store.ts';
import { envelopeBody } from '../../src/webhooks/event-payloads.ts';
import { resendingDeliveryAttempts } from '../../src/composition/webhook-events.ts';
import { subscriptionLookup } from '../../src/composition/webhooks.ts';
import { handler as purgeExpiredEvents } from '../../functions/events/purge-expired-events.ts';
import { ExtractionClient, workspaceKey } from '../support/extraction-client.ts';
import { startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { startWebhookReceiver, type ReceivedWebhook, type RunningWebhookReceiver } from '../support/webhook-receiver.ts';
import { webhookDeliveryConsumer } from '../../src/webhooks/triggers.ts';

// The Events endpoints over HTTP against the embedded stack: events recorded by the real recorder,
// deliveries written by the real store and engine (a real signed POST to a receiver on loopback), then
// the history, the exact payload, deliveries, their detail, resend, workspace isolation and the purge
// of expired events.

const completed: EventType = 'document-insights.extraction.completed';
const failed: EventType = 'document-insights.extraction.failed';
const rejected: EventType = 'document-insights.extraction.rejected';

const variables = {
  PAPERFLOW_ALLOW_PRIVATE_URLS: 'true',
  PAPERFLOW_WEBHOOK_TIMEOUT_SECONDS: '2',
  PAPERFLOW_WEBHOOK_RETRY_DELAYS: '0,1,1,1,1,1',
  // The events here are recorded without a hand-off (the tests make their deliveries themselves);
  // the drain must not hand them to a delivery consumer half-way through.
  PAPERFLOW_EVENT_OUTBOX_DRAIN_INTERVAL_SECONDS: '3600',
};

let stack: StackUnderTest;
let sqs: SQSClient;
let receiver: RunningWebhookReceiver;
let receiverUrl: string;
let store: DynamoDeliveryStore;
let engine: DeliveryAttempts;
let recorder: EventRecorder;
const received: ReceivedWebhook[] = [];

const send = (method: string, body?: unknown): RequestInit =>
  body === undefined ? { method } : { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };

beforeAll(async () => {
  Object.assign(process.env, variables);
  receiver = await startWebhookReceiver((request, response) => {
    received.push(request);
    response.writeHead(request.path === '/ok' ? 200 : 500).end('thanks');
  });
  receiverUrl = receiver.url;
  // This file takes the attempt messages off the queue itself, so the manifest's consumer is left out.
  stack = await startStackUnderTest({ omittedTriggers: [webhookDeliveryConsumer.name] });
  sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
  store = deliveryStore();
  engine = resendingDeliveryAttempts();
  recorder = new EventRecorder(new DynamoEventRecords(dynamoDocumentClient(), stack.resources.recordsTableName), { handOff: async () => undefined }, {
    put: async (objectKey, body) => {
      await s3Client().send(new PutObjectCommand({ Bucket: stack.resources.filesBucketName, Key: objectKey, Body: body }));
    },
  });
});

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  for (const name of Object.keys(variables)) delete process.env[name];
});

async function client(workspaceId: string, scopes?: string[]): Promise<ExtractionClient> {
  return new ExtractionClient(stack, await workspaceKey(workspaceId, scopes));
}

async function subscribe(as: ExtractionClient, eventTypes: EventType[], endpointUrl = 'https://hooks.example.com/paperflow'): Promise<string> {
  const { status, body } = await as.json('/event-subscriptions', send('POST', { name: 'events api', endpointUrl, eventTypes }));
  if (status !== 201) throw new Error(`subscription not created: ${status} ${JSON.stringify(body)}`);
  return body.id as string;
}

async function record(workspaceId: string, eventType: EventType, occurredAt: string, data: Record<string, unknown> = {}): Promise<EventEnvelope> {
  const envelope: EventEnvelope = { eventId: newIdentifier('evt'), eventType, occurredAt, apiVersion: 'v1', data: { extractionId: newIdentifier('ext'), ...data } };
  await recorder.record(workspaceId, envelope);
  return envelope;
}

/** A delivery written straight to the store in the given state: no queue message, so it stays so. */
async function delivery(workspaceId: string, event: EventEnvelope, subscriptionId: string, status: DeliveryStatus, trigger: 'automatic' | 'manual' = 'automatic'): Promise<DeliveryRecord> {
  const now = new Date().toISOString();
  const record: DeliveryRecord = {
    id: trigger === 'automatic' ? automaticDeliveryId(event.eventId, subscriptionId, event.occurredAt) : manualDeliveryId(),
    eventId: event.eventId,
    subscriptionId,
    workspaceId,
    eventType: event.eventType,
    occurredAt: event.occurredAt,
    trigger,
    status,
    attemptCount: status === 'PENDING' ? 0 : 1,
    maxAttempts: trigger === 'automatic' ? 6 : 1,
    createdAt: now,
    updatedAt: now,
    lastAttemptAt: null,
    nextAttemptAt: null,
    lastResponseStatus: null,
  };
  await store.create(record);
  return record;
}

/** The record of attempt `number` written straight onto a delivery written by `delivery()`, whatever its state. */
async function recordedAttempt(target: DeliveryRecord, number: number): Promise<void> {
  const startedAt = new Date().toISOString();
  await dynamoDocumentClient().send(
    new UpdateCommand({
      TableName: stack.resources.recordsTableName,
      Key: { pk: `EVENT#${target.eventId}`, sk: `DELIVERY#${target.id}` },
      UpdateExpression: 'SET #attempt = :record',
      ExpressionAttributeNames: { '#attempt': attemptAttribute(number) },
      ExpressionAttributeValues: { ':record': { number, startedAt, durationMs: 3, requestHeaders: {}, responseStatus: 500, responseBody: 'no', error: null, outcome: 'failed' } },
    }),
  );
}

/** Takes attempt messages off the queue and runs them, as the consumer does, until `done` holds. */
async function deliverUntil(done: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('deliveries did not settle in time');
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: stack.resources.webhookDeliveryQueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
    for (const message of Messages) {
      const body = JSON.parse(message.Body!);
      if (body.kind === 'attempt') await engine.processAttemptMessage(body);
      await sqs.send(new DeleteMessageCommand({ QueueUrl: stack.resources.webhookDeliveryQueueUrl, ReceiptHandle: message.ReceiptHandle! }));
    }
  }
}

const settled = (eventId: string, deliveryId: string) => async () => (await store.get(eventId, deliveryId))?.status === 'SUCCEEDED';

describe('GET /events', () => {
  const workspaceId = 'ws_events_list';
  let as: ExtractionClient;
  let s1: string;
  let s2: string;
  const base = Date.now() - 24 * 3600 * 1000;
  const at = (minutes: number) => new Date(base + minutes * 60_000).toISOString();
  let e1: EventEnvelope;
  let e2: EventEnvelope;
  let e5: EventEnvelope;
  const ids = (body: { data: { eventId: string }[] }) => body.data.map((event) => event.eventId);

  beforeAll(async () => {
    as = await client(workspaceId);
    s1 = await subscribe(as, [completed]);
    s2 = await subscribe(as, [completed, failed]);
    e1 = await record(workspaceId, completed, at(0));
    e2 = await record(workspaceId, failed, at(1));
    await record(workspaceId, rejected, at(2));
    await record(workspaceId, 'workflow.run.completed', at(2));
    e5 = await record(workspaceId, completed, at(3));
    await delivery(workspaceId, e1, s1, 'SUCCEEDED');
    await delivery(workspaceId, e1, s2, 'FAILED');
    await delivery(workspaceId, e2, s2, 'PENDING');
    await delivery(workspaceId, e5, s1, 'SUCCEEDED');
    await delivery(workspaceId, e5, s1, 'PENDING', 'manual');
  });

  it('lists only the subscribed types, newest first, without data, with the delivery summaries', async () => {
    const { status, body } = await as.json('/events');

    expect(status).toBe(200);
    expect(body.pageInfo).toEqual({ page: 0, size: 50, totalItems: 3, totalPages: 1 });
    expect(body.data).toEqual([
      { eventId: e5.eventId, eventType: completed, occurredAt: e5.occurredAt, apiVersion: 'v1', deliverySummary: { total: 2, succeeded: 1, failed: 0, pending: 1 } },
      { eventId: e2.eventId, eventType: failed, occurredAt: e2.occurredAt, apiVersion: 'v1', deliverySummary: { total: 1, succeeded: 0, failed: 0, pending: 1 } },
      { eventId: e1.eventId, eventType: completed, occurredAt: e1.occurredAt, apiVersion: 'v1', deliverySummary: { total: 2, succeeded: 1, failed: 1, pending: 0 } },
    ]);
  });

  it('scopes the events and the counts to one subscription', async () => {
    const first = await as.json(`/events?subscriptionId=${s1}`);
    const second = await as.json(`/events?subscriptionId=${s2}&sort=asc`);

    expect(ids(first.body)).toEqual([e5.eventId, e1.eventId]);
    expect(first.body.pageInfo.totalItems).toBe(2);
    expect(first.body.data.map((event: { deliverySummary: unknown }) => event.deliverySummary)).toEqual([
      { total: 2, succeeded: 1, failed: 0, pending: 1 },
      { total: 1, succeeded: 1, failed: 0, pending: 0 },
    ]);
    expect(ids(second.body)).toEqual([e1.eventId, e2.eventId]);
    expect(second.body.data[0].deliverySummary).toEqual({ total: 1, succeeded: 0, failed: 1, pending: 0 });
  });

  it('pages a subscription\'s events with exact totals, resends counted once', async () => {
    const pages = await Promise.all([0, 1].map((page) => as.json(`/events?subscriptionId=${s1}&size=1&page=${page}`)));

    expect(pages.map(({ body }) => ids(body))).toEqual([[e5.eventId], [e1.eventId]]);
    expect(pages[0]!.body.pageInfo).toEqual({ page: 0, size: 1, totalItems: 2, totalPages: 2 });
  });

  it('filters by type and time, and pages with exact totals', async () => {
    expect(ids((await as.json(`/events?eventType=${failed}`)).body)).toEqual([e2.eventId]);
    expect((await as.json(`/events?eventType=${rejected}`)).body).toEqual({ data: [], pageInfo: { page: 0, size: 50, totalItems: 0, totalPages: 0 } });
    expect(ids((await as.json(`/events?from=${encodeURIComponent(at(0.5))}&to=${encodeURIComponent(e2.occurredAt)}`)).body)).toEqual([e2.eventId]);
    expect(ids((await as.json(`/events?subscriptionId=${s1}&from=${encodeURIComponent(at(0.5))}`)).body)).toEqual([e5.eventId]);

    const lastPage = await as.json('/events?sort=asc&size=2&page=1');
    expect(ids(lastPage.body)).toEqual([e5.eventId]);
    expect(lastPage.body.pageInfo).toEqual({ page: 1, size: 2, totalItems: 3, totalPages: 2 });
  });

  it('refuses bad parameters with 400', async () => {
    for (const query of ['size=0', 'size=101', 'page=-1', 'sort=up', 'eventType=nope', 'from=yesterday', `from=${at(2)}&to=${at(1)}`, 'unknown=1']) {
      expect((await as.json(`/events?${query}`)).status, query).toBe(400);
    }
  });

  it('answers 404 for a subscriptionId that is not the workspace\'s', async () => {
    const other = await client('ws_events_list_other');
    const foreign = await subscribe(other, [completed]);

    expect((await as.json(`/events?subscriptionId=${foreign}`)).status).toBe(404);
    expect((await as.json('/events?subscriptionId=sub_nonsense')).status).toBe(404);
    // The other workspace subscribes to the same type but sees none of these events.
    expect((await other.json('/events')).body.pageInfo.totalItems).toBe(0);
  });

  it('is empty for a workspace without subscriptions, whatever it recorded', async () => {
    const none = await client('ws_events_unsubscribed');
    await record('ws_events_unsubscribed', completed, at(0));

    expect((await none.json('/events')).body.data).toEqual([]);
  });

  it('needs events:read', async () => {
    const readsSubscriptionsOnly = await client(workspaceId, ['subscriptions:read']);

    expect((await readsSubscriptionsOnly.json('/events')).status).toBe(403);
  });
});

describe('one event and its deliveries', () => {
  const workspaceId = 'ws_events_deliveries';
  let as: ExtractionClient;
  let other: ExtractionClient;
  let active: string;
  let paused: string;
  let event: EventEnvelope;
  let large: EventEnvelope;
  let first: DeliveryRecord;

  beforeAll(async () => {
    as = await client(workspaceId);
    other = await client('ws_events_deliveries_other');
    active = await subscribe(as, [completed], `${receiverUrl}/ok`);
    paused = await subscribe(as, [completed], `${receiverUrl}/ok`);
    event = await record(workspaceId, completed, new Date().toISOString(), { labels: { note: 'grüße, "quoted" \u2028 <b>' }, output: { total: 12.5, items: [1, null, true] } });
    large = await record(workspaceId, completed, new Date().toISOString(), { output: { text: 'x'.repeat(400 * 1024) } });
    // The real fan-out to the active subscription, and the real signed POST.
    const [view] = await engine.createAutomaticDeliveries({ workspaceId, envelope: event }, [(await subscriptionLookup().find(workspaceId, active))!]);
    await deliverUntil(settled(event.eventId, view!.id));
    first = (await store.get(event.eventId, view!.id))!;
    await delivery(workspaceId, event, paused, 'FAILED');
    expect((await as.json(`/event-subscriptions/${paused}`, send('PATCH', { status: 'paused' }))).status).toBe(200);
  });

  it('returns the event byte for byte as the delivery POSTed it', async () => {
    const response = await as.request(`/events/${event.eventId}`);
    const text = await response.text();

    expect(response.status).toBe(200);
    const posted = received.find((request) => request.headers['x-paperflow-delivery-id'] === first.id);
    expect(posted).toBeDefined();
    expect(text).toBe(posted!.body);
    expect(text).toBe(envelopeBody(event));
  });

  it('returns large data from the payload store', async () => {
    const { status, body } = await as.json(`/events/${large.eventId}`);

    expect(status).toBe(200);
    expect(body.data.output.text).toHaveLength(400 * 1024);
  });

  it('lists the event\'s deliveries, narrowed by subscription', async () => {
    const all = await as.json(`/events/${event.eventId}/deliveries`);
    const ofPaused = await as.json(`/events/${event.eventId}/deliveries?subscriptionId=${paused}`);

    expect(all.status).toBe(200);
    expect(all.body.pageInfo.totalItems).toBe(2);
    expect(all.body.data.map((item: { subscriptionId: string }) => item.subscriptionId).sort()).toEqual([active, paused].sort());
    expect(all.body.data.find((item: { id: string }) => item.id === first.id)).toMatchObject({ status: 'SUCCEEDED', trigger: 'automatic', attemptCount: 1, maxAttempts: 6, lastResponseStatus: 200 });
    expect(ofPaused.body.data.map((item: { status: string }) => item.status)).toEqual(['FAILED']);
    expect(ofPaused.body.pageInfo).toEqual({ page: 0, size: 50, totalItems: 1, totalPages: 1 });
  });

  it('shows a delivery\'s detail: payload, attempts, redacted signatures', async () => {
    const { status, body } = await as.json(`/events/${event.eventId}/deliveries/${first.id}`);

    expect(status).toBe(200);
    expect(body).toMatchObject({ id: first.id, eventId: event.eventId, subscriptionId: active, status: 'SUCCEEDED', payload: event, attemptsOmitted: false });
    expect(body.attempts).toHaveLength(1);
    const [attempt] = body.attempts;
    expect(attempt).toMatchObject({ number: 1, outcome: 'succeeded', responseStatus: 200, responseBody: 'thanks', error: null });
    const headers = Object.fromEntries(Object.entries(attempt.requestHeaders as Record<string, string>).map(([name, value]) => [name.toLowerCase(), value]));
    expect(headers['x-paperflow-signature']).toBe('[redacted]');
    expect(headers['webhook-signature']).toBe('[redacted]');
    expect(headers['x-paperflow-event-id']).toBe(event.eventId);
    expect(JSON.stringify(body)).not.toMatch(/v1=[0-9a-f]{64}/);
  });

  it('keeps the 100 most recent attempts in the detail, oldest first', async () => {
    const many = await delivery(workspaceId, event, active, 'PENDING', 'manual');
    for (let number = 1; number <= 101; number += 1) {
      const startedAt = new Date().toISOString();
      const completed = { number, startedAt, durationMs: 3, requestHeaders: {}, responseStatus: 500, responseBody: 'no', error: null, outcome: 'failed' as const };
      expect(await store.settleAttempt(many, completed, { status: 'PENDING', lastAttemptAt: startedAt, lastResponseStatus: 500, nextAttemptAt: startedAt, updatedAt: startedAt })).toBe(true);
    }

    const { body } = await as.json(`/events/${event.eventId}/deliveries/${many.id}`);

    expect(body.attempts).toHaveLength(100);
    expect(body.attempts[0].number).toBe(2);
    expect(body.attempts.at(-1).number).toBe(101);
    expect(body.attemptsOmitted).toBe(true);
  });

  it('resends: 202 with a new one-attempt manual delivery, which is sent', async () => {
    const { status, body } = await as.json(`/events/${event.eventId}/deliveries/${first.id}/resend`, send('POST'));

    expect(status).toBe(202);
    expect(body).toMatchObject({ eventId: event.eventId, subscriptionId: active, trigger: 'manual', status: 'PENDING', attemptCount: 0, maxAttempts: 1 });
    expect(body.id).not.toBe(first.id);
    await deliverUntil(settled(event.eventId, body.id));
    expect(received.filter((request) => request.headers['x-paperflow-delivery-id'] === body.id).map((request) => request.body)).toEqual([envelopeBody(event)]);
    const listed = await as.json(`/events/${event.eventId}/deliveries?subscriptionId=${active}`);
    expect(listed.body.data.map((item: { id: string }) => item.id)).toContain(body.id);
  });

  it('refuses a resend to a paused subscription with 409', async () => {
    const [failedDelivery] = (await store.listOfEvent(event.eventId)).filter((record) => record.subscriptionId === paused);

    const { status, body } = await as.json(`/events/${event.eventId}/deliveries/${failedDelivery!.id}/resend`, send('POST'));

    expect(status).toBe(409);
    expect(body.error.code).toBe('CONFLICT');
  });

  it('resends with subscriptions:write only', async () => {
    const readOnly = await client(workspaceId, ['events:read']);

    expect((await readOnly.json(`/events/${event.eventId}/deliveries/${first.id}/resend`, send('POST'))).status).toBe(403);
    expect((await readOnly.json(`/events/${event.eventId}/deliveries/${first.id}`)).status).toBe(200);
  });

  it('answers 404 to every operation for another workspace\'s ids and for malformed ids', async () => {
    const paths = [
      `/events/${event.eventId}`,
      `/events/${event.eventId}/deliveries`,
      `/events/${event.eventId}/deliveries/${first.id}`,
    ];
    for (const path of paths) expect((await other.json(path)).status, path).toBe(404);
    expect((await other.json(`/events/${event.eventId}/deliveries/${first.id}/resend`, send('POST'))).status).toBe(404);
    for (const path of ['/events/evt_nonsense', '/events/not-an-id/deliveries', `/events/${event.eventId}/deliveries/dlv_nonsense`]) {
      expect((await as.json(path)).status, path).toBe(404);
    }
    expect((await as.json(`/events/${event.eventId}/deliveries/dlv_nonsense/resend`, send('POST'))).status).toBe(404);
  });
});

describe('deliveries of an expired event', () => {
  const workspaceId = 'ws_events_expired_deliveries';

  it('answer 404 as the event does, before the purge and whatever the subscription\'s state, and the purge removes them', async () => {
    const as = await client(workspaceId);
    const subscriptionId = await subscribe(as, [completed]);
    // Recorded 90 days and a minute ago: past its retention, not purged yet.
    const expired = await record(workspaceId, completed, new Date(Date.now() - 90 * 24 * 3600 * 1000 - 60_000).toISOString());
    const fresh = await record(workspaceId, completed, new Date(Date.now() - 89 * 24 * 3600 * 1000).toISOString());
    const old = await delivery(workspaceId, expired, subscriptionId, 'FAILED');
    const kept = await delivery(workspaceId, fresh, subscriptionId, 'FAILED');
    for (const target of [old, kept]) {
      await recordedAttempt(target, 1);
    }
    expect((await store.get(expired.eventId, old.id))?.id).toBe(old.id);

    expect((await as.json(`/events/${expired.eventId}`)).status).toBe(404);
    expect((await as.json(`/events/${expired.eventId}/deliveries`)).status).toBe(404);
    expect((await as.json(`/events/${expired.eventId}/deliveries?subscriptionId=${subscriptionId}`)).status).toBe(404);
    const detail = await as.json(`/events/${expired.eventId}/deliveries/${old.id}`);
    expect(detail.status).toBe(404);
    expect(detail.body.error.code).toBe('NOT_FOUND');
    expect((await as.json(`/events/${expired.eventId}/deliveries/${old.id}/resend`, send('POST'))).status).toBe(404);
    // Paused, a live delivery's resend is a 409; an expired one's is still a 404.
    expect((await as.json(`/event-subscriptions/${subscriptionId}`, send('PATCH', { status: 'paused' }))).status).toBe(200);
    expect((await as.json(`/events/${fresh.eventId}/deliveries/${kept.id}/resend`, send('POST'))).status).toBe(409);
    expect((await as.json(`/events/${expired.eventId}/deliveries/${old.id}/resend`, send('POST'))).status).toBe(404);
    const listed = await as.json(`/events?subscriptionId=${subscriptionId}`);
    expect(listed.body.data.map((event: { eventId: string }) => event.eventId)).toEqual([fresh.eventId]);
    expect((await as.json(`/events/${fresh.eventId}/deliveries`)).body.data.map((listedDelivery: { id: string }) => listedDelivery.id)).toEqual([kept.id]);
    expect((await as.json(`/events/${fresh.eventId}/deliveries/${kept.id}`)).status).toBe(200);

    await purgeExpiredEvents({});

    expect(await store.get(expired.eventId, old.id)).toBeUndefined();
    expect((await store.recentAttempts(old, 100)).attempts).toEqual([]);
    expect(await store.get(fresh.eventId, kept.id)).toBeDefined();
    expect((await store.recentAttempts(kept, 100)).attempts).toHaveLength(1);
  });
});

describe('purgeExpiredEvents', () => {
  const workspaceId = 'ws_events_purge';

  const item = (pk: string, sk: string) => dynamoDocumentClient().send(new GetCommand({ TableName: stack.resources.recordsTableName, Key: { pk, sk } }));
  const objectExists = (key: string) =>
    s3Client().send(new HeadObjectCommand({ Bucket: stack.resources.filesBucketName, Key: key })).then(() => true, () => false);

  it('deletes expired events with their deliveries, attempts and payload objects, and nothing else', async () => {
    await workspaceKey(workspaceId);
    const expiredAt = new Date(Date.now() - 91 * 24 * 3600 * 1000).toISOString();
    const expired = await record(workspaceId, completed, expiredAt, { output: { text: 'x'.repeat(400 * 1024) } });
    const expiredSmall = await record(workspaceId, failed, expiredAt);
    const fresh = await record(workspaceId, completed, new Date().toISOString());
    const subscriptionId = newIdentifier('sub');
    const old = await delivery(workspaceId, expired, subscriptionId, 'FAILED');
    const kept = await delivery(workspaceId, fresh, subscriptionId, 'SUCCEEDED');
    for (const target of [old, kept]) {
      await recordedAttempt(target, 1);
    }
    const objectKey = eventPayloadObjectKey(workspaceId, expired.eventId);
    expect(await objectExists(objectKey)).toBe(true);

    const report = await purgeExpiredEvents({});

    expect(report).toMatchObject({ failed: 0 });
    expect(report.purged).toBeGreaterThanOrEqual(2);
    expect((await item(`EVENT#${expired.eventId}`, 'EVENT')).Item).toBeUndefined();
    expect((await item(`EVENT#${expiredSmall.eventId}`, 'EVENT')).Item).toBeUndefined();
    expect((await item(`EVENT#${expired.eventId}`, `DELIVERY#${old.id}`)).Item).toBeUndefined();
    expect(await objectExists(objectKey)).toBe(false);

    expect((await item(`EVENT#${fresh.eventId}`, 'EVENT')).Item).toBeDefined();
    expect((await item(`EVENT#${fresh.eventId}`, `DELIVERY#${kept.id}`)).Item).toBeDefined();
    expect((await store.recentAttempts(kept, 100)).attempts).toHaveLength(1);
  });
});
