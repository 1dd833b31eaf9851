import type { ServerResponse } from 'node:http';
import { DeleteMessageCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { EventEnvelope } from '../../src/events/event-envelope.ts';
import { DynamoEventRecords } from '../../src/events/aws/dynamodb-event-records.ts';
import { EventRecorder } from '../../src/events/event-recorder.ts';
import { dynamoDocumentClient } from '../../src/infrastructure/dynamodb-client.ts';
import { newIdentifier } from '../../src/infrastructure/identifiers.ts';
import type { AttemptMessageResult, DeliveryAttempts, DeliverySubscription } from '../../src/webhooks/delivery-attempts.ts';
import type { DeliveryHistory } from '../../src/webhooks/delivery-history.ts';
import { FanOutInProgress } from '../../src/webhooks/delivery-store.ts';
import { deliveryAttempts, deliveryHistory, deliveryStore } from '../../src/composition/webhook-deliveries.ts';
import { webhookDeliveryConsumer } from '../../src/webhooks/triggers.ts';
import { startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { refusedConnectionUrl, startWebhookReceiver, type ReceivedWebhook, type RunningWebhookReceiver } from '../support/webhook-receiver.ts';
import { fakeSign, InMemorySubscriptions } from '../support/memory/webhook-deliveries.ts';

// The delivery engine against the embedded stack's DynamoDB and SQS emulators and a real receiver on
// loopback: events recorded as the extraction recorder writes them, deliveries fanned out, attempt
// messages taken off the real queue and handed to the engine as the consumer will.

const workspaceId = 'ws_default';
let stack: StackUnderTest;
let sqs: SQSClient;
let receiver: RunningWebhookReceiver;
let receiverUrl: string;
let closedPortUrl: string;
let engine: DeliveryAttempts;
let history: DeliveryHistory;
let subscriptions: InMemorySubscriptions;
const received: ReceivedWebhook[] = [];
const flakyAnswers = [500, 500, 500, 200];

const routes: Record<string, (response: ServerResponse) => void> = {
  '/ok': (response) => response.writeHead(200).end('thanks'),
  '/moved': (response) => response.writeHead(301, { location: `${receiverUrl}/redirected` }).end(),
  '/silent': () => undefined,
  '/long': (response) => response.writeHead(200).end('y'.repeat(10_000)),
  '/flaky': (response) => response.writeHead(flakyAnswers.shift() ?? 200).end(),
};

const variables = {
  PAPERFLOW_ALLOW_PRIVATE_URLS: 'true',
  PAPERFLOW_WEBHOOK_TIMEOUT_SECONDS: '1',
  PAPERFLOW_WEBHOOK_RETRY_DELAYS: '0,1,1,1,1,1',
};

beforeAll(async () => {
  Object.assign(process.env, variables);
  receiver = await startWebhookReceiver((request, response) => {
    received.push(request);
    (routes[request.path] ?? ((answer) => answer.writeHead(404).end()))(response);
  });
  receiverUrl = receiver.url;
  closedPortUrl = await refusedConnectionUrl('/hooks');

  // This file reads the delivery queue itself: the manifest's consumer would take its messages.
  stack = await startStackUnderTest({ omittedTriggers: [webhookDeliveryConsumer.name] });
  sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
  subscriptions = new InMemorySubscriptions();
  engine = deliveryAttempts({ subscriptions, sign: fakeSign });
  history = deliveryHistory();
});

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  for (const name of Object.keys(variables)) delete process.env[name];
});

async function recordEvent(): Promise<EventEnvelope> {
  const envelope: EventEnvelope = {
    eventId: newIdentifier('evt'),
    eventType: 'document-insights.extraction.completed',
    occurredAt: new Date().toISOString(),
    apiVersion: 'v1',
    data: { extractionId: newIdentifier('ext'), status: 'COMPLETED' },
  };
  // The outbox's hand-off is left out: these tests call the fan-out themselves.
  await new EventRecorder(new DynamoEventRecords(dynamoDocumentClient(), stack.resources.recordsTableName), { handOff: async () => undefined }).record(workspaceId, envelope);
  return envelope;
}

function subscribe(path: string, overrides: Partial<DeliverySubscription> = {}): DeliverySubscription {
  const subscription: DeliverySubscription = {
    id: newIdentifier('sub'),
    workspaceId,
    status: 'active',
    endpointUrl: path.startsWith('http') ? path : `${receiverUrl}${path}`,
    eventTypes: ['document-insights.extraction.completed'],
    ...overrides,
  };
  subscriptions.add(subscription);
  return subscription;
}

/**
 * Takes attempt messages off the real queue, as the consumer will, until `limit` or none can arrive:
 * the queue holds none, visible, in flight or delayed (a retry's). Only this file's tests send to it,
 * and each send is done when the engine's call returns, so an empty queue stays empty; waiting a few
 * seconds for a message that no one sent cost most of this file's time.
 */
async function consume(limit = Infinity): Promise<AttemptMessageResult[]> {
  const results: AttemptMessageResult[] = [];
  while (results.length < limit) {
    if (await queueHoldsNothing()) break;
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: stack.resources.webhookDeliveryQueueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 1 }),
    );
    for (const message of Messages) {
      results.push(await engine.processAttemptMessage(JSON.parse(message.Body!)));
      await sqs.send(new DeleteMessageCommand({ QueueUrl: stack.resources.webhookDeliveryQueueUrl, ReceiptHandle: message.ReceiptHandle! }));
    }
  }
  return results;
}

async function queueHoldsNothing(): Promise<boolean> {
  const counts = ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'] as const;
  const { Attributes = {} } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: stack.resources.webhookDeliveryQueueUrl, AttributeNames: [...counts] }));
  return counts.every((count) => Attributes[count] === '0');
}

/** Ends what a failure test left queued: its subscription deleted, the remaining attempt ends it. */
async function endDelivery(subscription: DeliverySubscription): Promise<void> {
  subscriptions.subscriptions.delete(subscription.id);
  expect(await consume()).toEqual([{ action: 'ended' }]);
}

async function deliverOnce(path: string) {
  const event = await recordEvent();
  const subscription = subscribe(path);
  const [delivery] = await engine.createAutomaticDeliveries({ workspaceId, envelope: event }, [subscription]);
  const results = await consume(1);
  const detail = await history.getDelivery(workspaceId, event.eventId, delivery!.id);
  return { event, subscription, delivery: delivery!, results, detail };
}

describe('webhook delivery engine over the embedded stack', () => {
  it('delivers on the first attempt: the envelope, the headers, one succeeded attempt, SUCCEEDED', async () => {
    const { event, delivery, results, detail } = await deliverOnce('/ok');

    expect(results).toEqual([{ action: 'sent', outcome: 'succeeded', deliveryStatus: 'SUCCEEDED' }]);
    const request = received.at(-1)!;
    expect(JSON.parse(request.body)).toEqual(event);
    expect(request.headers).toMatchObject({ 'x-paperflow-event-id': event.eventId, 'x-paperflow-delivery-id': delivery.id, 'x-paperflow-attempt': '1' });
    expect(detail).toMatchObject({ status: 'SUCCEEDED', attemptCount: 1, lastResponseStatus: 200, nextAttemptAt: null, payload: event, attemptsOmitted: false });
    expect(detail.attempts).toEqual([
      expect.objectContaining({ number: 1, outcome: 'succeeded', responseStatus: 200, responseBody: 'thanks', error: null }),
    ]);
    expect(detail.attempts[0]!.requestHeaders['X-Paperflow-Signature']).toBe('[redacted]');
    expect(await consume()).toEqual([]);
  });

  it('writes nothing new on a second fan-out of the same event', async () => {
    const event = await recordEvent();
    const subscription = subscribe('/ok');
    const [first] = await engine.createAutomaticDeliveries({ workspaceId, envelope: event }, [subscription]);
    await consume();

    const [again] = await engine.createAutomaticDeliveries({ workspaceId, envelope: event }, [subscription]);

    expect(again).toMatchObject({ id: first!.id, status: 'SUCCEEDED' });
    expect(await deliveryStore().listOfEvent(event.eventId)).toHaveLength(1);
    expect(await consume()).toEqual([]);
  });

  it('500 three times then 200: four attempts with their statuses, summarised per event', async () => {
    const event = await recordEvent();
    const subscription = subscribe('/flaky');
    const [delivery] = await engine.createAutomaticDeliveries({ workspaceId, envelope: event }, [subscription]);

    const results = await consume();

    expect(results.map((result) => result.action)).toEqual(['sent', 'sent', 'sent', 'sent']);
    const detail = await history.getDelivery(workspaceId, event.eventId, delivery!.id);
    expect(detail.attempts.map(({ number, responseStatus, outcome }) => [number, responseStatus, outcome])).toEqual([
      [1, 500, 'failed'],
      [2, 500, 'failed'],
      [3, 500, 'failed'],
      [4, 200, 'succeeded'],
    ]);
    expect(detail).toMatchObject({ status: 'SUCCEEDED', attemptCount: 4 });
    expect((await history.summaries([event.eventId])).get(event.eventId)).toEqual({ total: 1, succeeded: 1, failed: 0, pending: 0 });
  });

  it('counts a 301 as a failed attempt of kind redirect, not followed', async () => {
    const { subscription, results, detail } = await deliverOnce('/moved');

    expect(results).toEqual([{ action: 'sent', outcome: 'failed', deliveryStatus: 'PENDING' }]);
    expect(detail.attempts).toEqual([expect.objectContaining({ number: 1, outcome: 'failed', responseStatus: 301, error: expect.objectContaining({ kind: 'redirect' }) })]);
    expect(received.map((request) => request.path)).not.toContain('/redirected');
    await endDelivery(subscription);
  });

  it('records a timeout when the receiver never answers', async () => {
    const { subscription, detail } = await deliverOnce('/silent');

    expect(detail.attempts).toEqual([expect.objectContaining({ outcome: 'failed', responseStatus: null, error: expect.objectContaining({ kind: 'timeout' }) })]);
    expect(detail.attempts[0]!.durationMs).toBeGreaterThanOrEqual(900);
    await endDelivery(subscription);
  });

  it('records a refused connection to a closed port', async () => {
    const { subscription, detail } = await deliverOnce(closedPortUrl);

    expect(detail.attempts).toEqual([expect.objectContaining({ outcome: 'failed', responseStatus: null, error: expect.objectContaining({ kind: 'connection refused' }) })]);
    await endDelivery(subscription);
  });

  it('keeps the first 4 KB of the response body', async () => {
    const { detail } = await deliverOnce('/long');

    expect(detail.status).toBe('SUCCEEDED');
    expect(detail.attempts[0]!.responseBody).toBe('y'.repeat(4096));
  });

  it('holds the attempt of a paused subscription on the sparse index and sends it once resumed', async () => {
    const event = await recordEvent();
    const subscription = subscribe('/ok');
    const [delivery] = await engine.createAutomaticDeliveries({ workspaceId, envelope: event }, [subscription]);
    subscriptions.add({ ...subscription, status: 'paused' });

    expect(await consume()).toEqual([{ action: 'held' }]);
    expect(await deliveryStore().listHeld(subscription.id)).toEqual([{ eventId: event.eventId, deliveryId: delivery!.id, heldAttempt: 1 }]);

    subscriptions.add({ ...subscription, status: 'active' });
    expect(await engine.releaseHeldDeliveries(subscription.id)).toBe(1);
    expect(await consume()).toEqual([{ action: 'sent', outcome: 'succeeded', deliveryStatus: 'SUCCEEDED' }]);
    expect(await deliveryStore().listHeld(subscription.id)).toEqual([]);
  });

  it('resends as a new manual delivery, listed with the automatic one', async () => {
    const { event, delivery } = await deliverOnce('/ok');

    const resent = await engine.resendDelivery(workspaceId, event.eventId, delivery.id);
    expect(await consume()).toEqual([{ action: 'sent', outcome: 'succeeded', deliveryStatus: 'SUCCEEDED' }]);

    const listed = await history.listEventDeliveries(workspaceId, event.eventId, {}, { page: 0, size: 1 });
    expect(listed.pageInfo).toEqual({ page: 0, size: 1, totalItems: 2, totalPages: 2 });
    expect(listed.data.map((item) => item.id)).toEqual([delivery.id]);
    const second = await history.listEventDeliveries(workspaceId, event.eventId, {}, { page: 1, size: 1 });
    expect(second.data).toEqual([expect.objectContaining({ id: resent.id, trigger: 'manual', maxAttempts: 1, status: 'SUCCEEDED' })]);
    await expect(history.listEventDeliveries('ws_other', event.eventId, {}, { page: 0, size: 10 })).rejects.toThrow('does not exist');
    await expect(history.getDelivery('ws_other', event.eventId, delivery.id)).rejects.toThrow('does not exist');
  });
});

/**
 * Every item write sent to the table from now to the end of the test, on the SDK client the store
 * uses (the stack runs in this process): one per PutItem, UpdateItem and DeleteItem, and one per item
 * of a BatchWriteItem, each kept as its JSON so a test can count the writes of one item.
 */
function recordItemWrites(): { of: (...keyParts: string[]) => number } {
  const written: string[] = [];
  const middlewareName = 'recordItemWrites';
  dynamoDocumentClient().middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { RequestItems?: Record<string, unknown[]> };
      if (/BatchWrite/.test(context.commandName ?? '')) for (const requests of Object.values(input.RequestItems ?? {})) written.push(...requests.map((request) => JSON.stringify(request)));
      else if (/^(Put|Update|Delete)/.test(context.commandName ?? '')) written.push(JSON.stringify(input));
      return next(args);
    },
    { step: 'initialize', name: middlewareName },
  );
  onTestFinished(() => void dynamoDocumentClient().middlewareStack.remove(middlewareName));
  return { of: (...keyParts) => written.filter((write) => keyParts.every((part) => write.includes(part))).length };
}

describe('writes per delivery, on the DynamoDB store', () => {
  it("a delivery of an event's first fan-out costs one write of its item for its first attempt, the settle that records the outcome; the event's claim one for all of them", async () => {
    const event = await recordEvent();
    const targets = [subscribe('/ok'), subscribe('/ok'), subscribe('/ok')];
    const writes = recordItemWrites();

    const deliveries = await engine.createAutomaticDeliveries({ workspaceId, envelope: event }, targets, { sendFirstAttemptsNow: true });

    expect(deliveries).toHaveLength(3);
    for (const delivery of deliveries) {
      expect(await history.getDelivery(workspaceId, event.eventId, delivery.id)).toMatchObject({ status: 'SUCCEEDED', attemptCount: 1, attempts: [expect.objectContaining({ number: 1, outcome: 'succeeded' })] });
      expect(writes.of(`DELIVERY#${delivery.id}`)).toBe(1);
    }
    expect(writes.of(`EVENT#${event.eventId}`, 'FANOUT')).toBe(1);
    expect(await consume()).toEqual([]);
  });

  it('a first fan-out stopped after its POSTs, before the settle: read as in flight; the next fan-out creates its deliveries from the claim item and sends attempt 1 again, recorded once', async () => {
    const event = await recordEvent();
    const [stays, pausedLater] = [subscribe('/ok'), subscribe('/ok')];
    // The process stops after the POSTs: no write of the event's items lands after its claim, the
    // settle's and the claim's hand-back included (the stack runs in this process, on this client).
    const middlewareName = 'stoppedAfterThePosts';
    dynamoDocumentClient().middlewareStack.add(
      (next) => async (args) => {
        const input = JSON.stringify(args.input);
        if (input.includes(`EVENT#${event.eventId}`) && (input.includes('DELIVERY#') || input.includes('REMOVE claimedUntil'))) throw new Error('The process stopped.');
        return next(args);
      },
      { step: 'initialize', name: middlewareName },
    );
    onTestFinished(() => void dynamoDocumentClient().middlewareStack.remove(middlewareName));
    const stopped = engine.createAutomaticDeliveries({ workspaceId, envelope: event }, [stays, pausedLater], { sendFirstAttemptsNow: true });
    await expect(stopped).rejects.toThrow('The process stopped.');
    dynamoDocumentClient().middlewareStack.remove(middlewareName);
    const postsOf = (deliveryId: string) => received.filter((request) => request.headers['x-paperflow-delivery-id'] === deliveryId);

    const listed = await history.listEventDeliveries(workspaceId, event.eventId, {}, { page: 0, size: 10 });
    expect(listed.data.map((delivery) => [delivery.status, delivery.attemptCount])).toEqual([
      ['PENDING', 0],
      ['PENDING', 0],
    ]);
    const [first, second] = listed.data;
    expect((await history.getDelivery(workspaceId, event.eventId, first!.id)).attempts).toEqual([expect.objectContaining({ number: 1, outcome: 'pending' })]);
    expect([postsOf(first!.id), postsOf(second!.id)].map((posts) => posts.length)).toEqual([1, 1]);
    // While the stopped fan-out's claim runs, a second one neither writes nor sends.
    await expect(engine.createAutomaticDeliveries({ workspaceId, envelope: event }, [stays, pausedLater], { sendFirstAttemptsNow: true })).rejects.toThrow(FanOutInProgress);

    subscriptions.subscriptions.get(pausedLater.id)!.status = 'paused';
    // The claim runs out (30 s after it was taken): moved into the past rather than waited for.
    await dynamoDocumentClient().send(
      new UpdateCommand({
        TableName: stack.resources.recordsTableName,
        Key: { pk: `EVENT#${event.eventId}`, sk: 'FANOUT' },
        UpdateExpression: 'SET claimedUntil = :past',
        ExpressionAttributeValues: { ':past': new Date(Date.now() - 1_000).toISOString() },
      }),
    );
    // The paused subscription no longer matches the event: its delivery is created from the claim item.
    await engine.createAutomaticDeliveries({ workspaceId, envelope: event }, [stays, { ...pausedLater, status: 'paused' }], { sendFirstAttemptsNow: true });

    const delivered = await history.getDelivery(workspaceId, event.eventId, first!.subscriptionId === stays.id ? first!.id : second!.id);
    const held = await deliveryStore().get(event.eventId, first!.subscriptionId === stays.id ? second!.id : first!.id);
    expect(delivered).toMatchObject({ status: 'SUCCEEDED', attemptCount: 1 });
    expect(delivered.attempts).toEqual([expect.objectContaining({ number: 1, outcome: 'succeeded', responseStatus: 200 })]);
    expect(postsOf(delivered.id).map((request) => [request.headers['x-paperflow-event-id'], request.headers['x-paperflow-attempt']])).toEqual([
      [event.eventId, '1'],
      [event.eventId, '1'],
    ]);
    expect(held).toMatchObject({ status: 'PENDING', attemptCount: 0, heldAttempt: 1 });
    expect(postsOf(held!.id)).toHaveLength(1);
    expect(await consume()).toEqual([]);
  });

  it("a resend's first attempt, through the queue, costs two writes of its item too: the new delivery and the settle", async () => {
    const { event, delivery } = await deliverOnce('/ok');
    const writes = recordItemWrites();

    const resent = await engine.resendDelivery(workspaceId, event.eventId, delivery.id);
    expect(await consume()).toEqual([{ action: 'sent', outcome: 'succeeded', deliveryStatus: 'SUCCEEDED' }]);

    expect(await history.getDelivery(workspaceId, event.eventId, resent.id)).toMatchObject({ status: 'SUCCEEDED', attemptCount: 1 });
    expect(writes.of(`DELIVERY#${resent.id}`)).toBe(2);
  });
});
