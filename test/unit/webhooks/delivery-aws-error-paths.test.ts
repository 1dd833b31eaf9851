import { ConditionalCheckFailedException, DynamoDBClient, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { SqsDeliveryQueue } from '../../../src/infrastructure/delivery-queue.ts';
import type { AttemptRecord, DeliveryRecord } from '../../../src/webhooks/delivery-records.ts';
import { DynamoDeliveryStore } from '../../../src/webhooks/aws/dynamodb-delivery-store.ts';

const documents = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);

beforeEach(() => {
  documents.reset();
  sqs.reset();
});

const conditionalFailure = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: { httpStatusCode: 400 } });
const throttled = () => new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: { httpStatusCode: 400 } });
const store = () => new DynamoDeliveryStore(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })), 'records');

const delivery: DeliveryRecord = {
  id: 'dlv_01JZ0000000000000000000001',
  eventId: 'evt_01JZ0000000000000000000001',
  subscriptionId: 'sub_01JZ0000000000000000000001',
  workspaceId: 'ws_a',
  eventType: 'document-insights.extraction.completed',
  occurredAt: '2026-03-01T10:00:00.000Z',
  trigger: 'automatic',
  status: 'PENDING',
  attemptCount: 0,
  maxAttempts: 6,
  createdAt: '2026-03-01T10:00:01.000Z',
  updatedAt: '2026-03-01T10:00:01.000Z',
  lastAttemptAt: null,
  nextAttemptAt: '2026-03-01T10:00:01.000Z',
  lastResponseStatus: null,
};

const completed: AttemptRecord = {
  number: 1,
  startedAt: '2026-03-01T10:00:02.000Z',
  durationMs: 12,
  requestHeaders: { 'X-Paperflow-Signature': '[redacted]' },
  responseStatus: 200,
  responseBody: 'ok',
  error: null,
  outcome: 'succeeded',
};

describe('DynamoDeliveryStore', () => {
  it('reads a stored delivery as its record only (keys, indexes and attempt records left out), and refuses a malformed item instead of casting it', async () => {
    const item = { pk: `EVENT#${delivery.eventId}`, sk: `DELIVERY#${delivery.id}`, gsi1pk: 'SUB#x#DELIVERIES', expiresAt: 1, attempt0001: completed, ...delivery };
    documents.on(GetCommand).resolvesOnce({ Item: item }).resolves({ Item: { ...item, status: 'LOST', attemptCount: '1' } });

    expect(await store().get(delivery.eventId, delivery.id)).toEqual(delivery);
    await expect(store().get(delivery.eventId, delivery.id)).rejects.toThrow(/status|attemptCount/);
  });

  it('creates a delivery with its keys, its subscription index and its expiry, once', async () => {
    documents.on(PutCommand).resolvesOnce({}).rejects(conditionalFailure());

    expect(await store().create(delivery)).toBe(true);
    expect(await store().create(delivery)).toBe(false);
    const put = documents.commandCalls(PutCommand)[0]!.args[0].input;
    expect(put.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(put.Item).toMatchObject({
      pk: `EVENT#${delivery.eventId}`,
      sk: `DELIVERY#${delivery.id}`,
      gsi1pk: `SUB#${delivery.subscriptionId}#DELIVERIES`,
      gsi1sk: `${delivery.occurredAt}#${delivery.eventId}#${delivery.id}`,
      expiresAt: Date.parse(delivery.occurredAt) / 1000 + 90 * 86_400,
    });
    expect(put.Item).not.toHaveProperty('gsi6pk');
  });

  it('passes on a failure that is not a condition', async () => {
    documents.on(PutCommand).rejects(throttled());
    documents.on(UpdateCommand).rejects(throttled());

    await expect(store().create(delivery)).rejects.toThrow('slow down');
    await expect(store().settleAttempt(delivery, completed, { status: 'SUCCEEDED', lastAttemptAt: 'x', lastResponseStatus: 200, nextAttemptAt: null, updatedAt: 'x' })).rejects.toThrow('slow down');
  });

  it('records the attempt on its delivery item in the same conditional write that settles it', async () => {
    documents.on(UpdateCommand).resolves({});

    expect(await store().settleAttempt(delivery, completed, { status: 'SUCCEEDED', lastAttemptAt: completed.startedAt, lastResponseStatus: 200, nextAttemptAt: null, updatedAt: 'x' })).toBe(true);
    const update = documents.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(documents.commandCalls(UpdateCommand)).toHaveLength(1);
    expect(documents.commandCalls(PutCommand)).toHaveLength(0);
    expect(update.Key).toEqual({ pk: `EVENT#${delivery.eventId}`, sk: `DELIVERY#${delivery.id}` });
    expect(update.UpdateExpression).toContain('SET #attempt = :record, attemptCount = :attempt');
    expect(update.ExpressionAttributeNames).toMatchObject({ '#attempt': 'attempt0001' });
    expect(update.ExpressionAttributeValues).toMatchObject({ ':record': completed, ':attempt': 1, ':previous': 0 });
  });

  it('settles an attempt only on the delivery’s next number, clearing the held mark', async () => {
    documents.on(UpdateCommand).rejects(conditionalFailure());

    expect(await store().settleAttempt(delivery, { ...completed, outcome: 'failed', responseStatus: 500 }, { status: 'PENDING', lastAttemptAt: 'x', lastResponseStatus: 500, nextAttemptAt: 'y', updatedAt: 'x' })).toBe(false);
    const update = documents.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(update.ConditionExpression).toBe('#status = :pending AND attemptCount = :previous');
    expect(update.ExpressionAttributeValues).toMatchObject({ ':previous': 0, ':attempt': 1 });
    expect(update.UpdateExpression).toContain('REMOVE heldAttempt, gsi6pk, gsi6sk');
  });

  it('holds on the sparse index of the subscription', async () => {
    documents.on(UpdateCommand).resolves({});

    expect(await store().hold(delivery, 1, '2026-03-01T10:00:02.000Z')).toBe(true);
    expect(documents.commandCalls(UpdateCommand)[0]!.args[0].input.ExpressionAttributeValues).toMatchObject({
      ':held': `SUB#${delivery.subscriptionId}#HELD`,
      ':id': delivery.id,
      ':attempt': 1,
    });
  });

  it('reads the attempts from the delivery item and answers the 100 most recent, oldest first', async () => {
    const attempts = Object.fromEntries(Array.from({ length: 101 }, (_, index) => [`attempt${String(120 - index).padStart(4, '0')}`, { ...completed, number: 120 - index, outcome: 'failed' }]));
    documents.on(GetCommand).resolves({ Item: { pk: `EVENT#${delivery.eventId}`, sk: `DELIVERY#${delivery.id}`, ...delivery, attemptCount: 120, ...attempts } });
    documents.on(QueryCommand).resolves({ Items: [] });

    const recent = await store().recentAttempts(delivery, 100);

    expect(documents.commandCalls(GetCommand)[0]!.args[0].input).toMatchObject({ Key: { pk: `EVENT#${delivery.eventId}`, sk: `DELIVERY#${delivery.id}` }, ConsistentRead: true });
    expect(recent.omitted).toBe(true);
    expect(recent.attempts.map((attempt) => attempt.number)).toEqual(Array.from({ length: 100 }, (_, index) => 21 + index));
  });

  it('reads attempts recorded as items of their own before the delivery item held them, once each', async () => {
    documents.on(GetCommand).resolves({
      Item: { pk: `EVENT#${delivery.eventId}`, sk: `DELIVERY#${delivery.id}`, ...delivery, attemptCount: 3, attempt0003: { ...completed, number: 3 } },
    });
    documents.on(QueryCommand).resolves({
      Items: [1, 2, 3].map((number) => ({ pk: `DLV#${delivery.id}`, sk: `ATTEMPT#000${number}`, deliveryId: delivery.id, ...completed, number, outcome: 'failed' })),
    });

    const recent = await store().recentAttempts(delivery, 100);

    expect(documents.commandCalls(QueryCommand)[0]!.args[0].input.ExpressionAttributeValues).toEqual({ ':pk': `DLV#${delivery.id}`, ':prefix': 'ATTEMPT#' });
    expect(recent.attempts.map((attempt) => [attempt.number, attempt.outcome])).toEqual([
      [1, 'failed'],
      [2, 'failed'],
      [3, completed.outcome],
    ]);
  });

  it('does not look for attempts of the earlier layout when the delivery item holds all it counts', async () => {
    documents.on(GetCommand).resolves({ Item: { pk: `EVENT#${delivery.eventId}`, sk: `DELIVERY#${delivery.id}`, ...delivery, attemptCount: 1, attempt0001: { ...completed, number: 1 } } });

    expect((await store().recentAttempts(delivery, 100)).attempts).toHaveLength(1);
    expect(documents.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it('lists an event\'s deliveries without the attempt records their items hold', async () => {
    documents.on(QueryCommand).resolves({ Items: [{ pk: `EVENT#${delivery.eventId}`, sk: `DELIVERY#${delivery.id}`, ...delivery }] });

    expect(await store().listOfEvent(delivery.eventId)).toEqual([delivery]);
    const query = documents.commandCalls(QueryCommand)[0]!.args[0].input;
    const projected = query.ProjectionExpression!.split(', ').map((name) => query.ExpressionAttributeNames![name]);
    expect(projected).toEqual(expect.arrayContaining(['id', 'status', 'attemptCount', 'firstAttemptStartedAt']));
    expect(projected.some((name) => /^attempt\d/.test(name!))).toBe(false);
  });

  it('answers no attempts for a delivery that recorded none, or that is gone', async () => {
    documents.on(GetCommand).resolvesOnce({ Item: { pk: `EVENT#${delivery.eventId}`, sk: `DELIVERY#${delivery.id}`, ...delivery } }).resolves({});

    expect(await store().recentAttempts(delivery, 100)).toEqual({ attempts: [], omitted: false });
    expect(await store().recentAttempts(delivery, 100)).toEqual({ attempts: [], omitted: false });
  });
});

describe('SqsDeliveryQueue', () => {
  const queue = () => new SqsDeliveryQueue(new SQSClient({ region: 'us-east-1' }), 'https://sqs.example/queue');

  it('sends the message as JSON with its delay', async () => {
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm1' });

    await queue().send({ kind: 'attempt', deliveryId: 'dlv_1', eventId: 'evt_1', attempt: 2 }, 60);

    expect(sqs.commandCalls(SendMessageCommand)[0]!.args[0].input).toEqual({
      QueueUrl: 'https://sqs.example/queue',
      MessageBody: JSON.stringify({ kind: 'attempt', deliveryId: 'dlv_1', eventId: 'evt_1', attempt: 2 }),
      DelaySeconds: 60,
    });
  });

  it('refuses a delay SQS would refuse, and passes SQS failures on', async () => {
    sqs.on(SendMessageCommand).rejects(new Error('queue does not exist'));

    await expect(queue().send({}, 901)).rejects.toThrow('0 to 900 whole seconds');
    await expect(queue().send({}, 1.5)).rejects.toThrow('0 to 900 whole seconds');
    await expect(queue().send({}, 0)).rejects.toThrow('queue does not exist');
  });
});
