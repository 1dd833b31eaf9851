import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureLocalKeyFile, LocalFileDataKeys } from '../../../src/infrastructure/local-file-data-keys.ts';
import { ConflictError, DownstreamError, NotFoundError } from '../../../src/platform/errors.ts';
import { DynamoSubscriptionQuota } from '../../../src/webhooks/aws/dynamodb-subscription-quota.ts';
import { DynamoSubscriptionStore } from '../../../src/webhooks/aws/dynamodb-subscription-store.ts';
import { SigningSecretCipher } from '../../../src/webhooks/subscription-secrets.ts';
import { SubscriptionService } from '../../../src/webhooks/subscription-service.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strictOutboundUrlPolicy } from '../../../src/outbound/outbound-settings.ts';

const documents = mockClient(DynamoDBDocumentClient);
const documentClient = () => DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const conditionalFailure = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: { httpStatusCode: 400 } });
const throttled = () => Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException', $metadata: { httpStatusCode: 400 } });

const quotaUpdates = () => documents.commandCalls(UpdateCommand).map((call) => call.args[0].input).filter((input) => String(input.Key?.pk).endsWith('#SUBQUOTA'));
const subscriptionId = (n: number) => `sub_01JZ${String(n).padStart(22, '0')}`;
const now = new Date('2026-03-01T12:00:00.000Z');
const minutesAgo = (minutes: number) => new Date(now.getTime() - minutes * 60_000).toISOString();

/**
 * The quota item and the subscriptions as the table holds them, answering the quota's few commands
 * with the same conditions DynamoDB applies (test/integration/event-subscriptions.test.ts runs the
 * real expressions against the embedded stack).
 */
function quotaTable(initial: { slots?: Record<string, string>; subscriptions?: string[] } = {}) {
  const table = { slots: initial.slots ? { ...initial.slots } : undefined, subscriptions: new Set(initial.subscriptions ?? []) };
  documents.on(GetCommand).callsFake(() => ({ Item: table.slots ? { slots: { ...table.slots } } : undefined }));
  documents.on(QueryCommand).callsFake(() => ({ Items: [...table.subscriptions].map((id) => ({ id, createdAt: minutesAgo(60) })) }));
  documents.on(BatchGetCommand).callsFake((input) => ({
    Responses: { records: input.RequestItems.records.Keys.filter((key: { pk: string }) => table.subscriptions.has(key.pk.slice(4))).map((key: { pk: string }) => ({ id: key.pk.slice(4) })) },
  }));
  documents.on(UpdateCommand).callsFake((input) => {
    const id = input.ExpressionAttributeNames?.['#id'];
    if (input.UpdateExpression === 'SET slots.#id = :at') {
      if (!table.slots || Object.keys(table.slots).length >= input.ExpressionAttributeValues[':limit']) throw conditionalFailure();
      table.slots[id] = input.ExpressionAttributeValues[':at'];
    } else if (input.UpdateExpression === 'SET slots = :slots') {
      if (table.slots) throw conditionalFailure();
      table.slots = { ...input.ExpressionAttributeValues[':slots'] };
    } else if (input.UpdateExpression === 'REMOVE slots.#id') {
      if (!table.slots) throw conditionalFailure();
      if (input.ConditionExpression === 'slots.#id = :takenAt' && table.slots[id] !== input.ExpressionAttributeValues[':takenAt']) throw conditionalFailure();
      delete table.slots[id];
    } else throw new Error(`unexpected update ${input.UpdateExpression}`);
    return {};
  });
  return table;
}

const quotaOf = () => new DynamoSubscriptionQuota(documentClient(), 'records', { now: () => now });
const fullOf = (takenAt: (n: number) => string) => Object.fromEntries(Array.from({ length: 25 }, (_, n) => [subscriptionId(n), takenAt(n)]));

beforeEach(() => {
  documents.reset();
});

describe('SubscriptionQuota', () => {
  it('takes the subscription\'s slot by one conditional update of the workspace\'s map', async () => {
    const table = quotaTable({ slots: {} });

    await quotaOf().reserve('ws_a', subscriptionId(1));

    expect(quotaUpdates()).toEqual([
      {
        TableName: 'records',
        Key: { pk: 'WS#ws_a#SUBQUOTA', sk: 'QUOTA' },
        UpdateExpression: 'SET slots.#id = :at',
        ConditionExpression: 'attribute_exists(slots) AND size(slots) < :limit',
        ExpressionAttributeNames: { '#id': subscriptionId(1) },
        ExpressionAttributeValues: { ':at': now.toISOString(), ':limit': 25 },
      },
    ]);
    expect(table.slots).toEqual({ [subscriptionId(1)]: now.toISOString() });
  });

  it('gives a workspace without the map one listing its subscriptions, then takes the slot', async () => {
    const table = quotaTable({ subscriptions: [subscriptionId(1), subscriptionId(2)] });

    await quotaOf().reserve('ws_a', subscriptionId(3));

    expect(Object.keys(table.slots!).sort()).toEqual([subscriptionId(1), subscriptionId(2), subscriptionId(3)]);
  });

  it('answers 409 CONFLICT when all 25 slots belong to existing subscriptions, and frees none', async () => {
    const table = quotaTable({ slots: fullOf(() => minutesAgo(60)), subscriptions: Array.from({ length: 25 }, (_, n) => subscriptionId(n)) });

    await expect(quotaOf().reserve('ws_a', subscriptionId(99))).rejects.toThrow(ConflictError);
    expect(Object.keys(table.slots!)).toHaveLength(25);
  });

  it('frees a slot whose subscription is gone (a release that failed) and takes it, but never a young one', async () => {
    // Slot 0 leaked an hour ago; slot 1 was taken a minute ago by a create that has not written yet.
    const table = quotaTable({ slots: fullOf((n) => (n === 1 ? minutesAgo(1) : minutesAgo(60))), subscriptions: Array.from({ length: 25 }, (_, n) => subscriptionId(n)).slice(2) });

    await quotaOf().reserve('ws_a', subscriptionId(99));

    expect(Object.keys(table.slots!)).toHaveLength(25);
    expect(table.slots).not.toHaveProperty(subscriptionId(0));
    expect(table.slots).toHaveProperty(subscriptionId(1));
    expect(table.slots).toHaveProperty(subscriptionId(99));
    await expect(quotaOf().reserve('ws_a', subscriptionId(100))).rejects.toThrow(ConflictError);
  });

  it('gives a slot back by removing its entry, again harmlessly', async () => {
    const table = quotaTable({ slots: { [subscriptionId(1)]: minutesAgo(5) } });

    await quotaOf().release('ws_a', subscriptionId(1));
    await quotaOf().release('ws_a', subscriptionId(1));

    expect(table.slots).toEqual({});
  });

  it('turns a DynamoDB failure into a retryable 502', async () => {
    documents.on(UpdateCommand).rejects(throttled());

    await expect(quotaOf().reserve('ws_a', subscriptionId(1))).rejects.toThrow(DownstreamError);
  });

  it('lets exactly one of two creates racing for the last slot through', async () => {
    quotaTable({ slots: fullOf(() => minutesAgo(60)), subscriptions: Array.from({ length: 25 }, (_, n) => subscriptionId(n)) });
    await quotaOf().release('ws_a', subscriptionId(0));
    const quota = quotaOf();

    const outcomes = await Promise.allSettled([quota.reserve('ws_a', subscriptionId(98)), quota.reserve('ws_a', subscriptionId(99))]);

    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(outcomes.find((outcome) => outcome.status === 'rejected')).toMatchObject({ reason: expect.any(ConflictError) });
  });
});

describe('SubscriptionService with the quota', () => {
  let clock = now;
  beforeEach(() => {
    clock = now;
  });
  let keyFolder: string;
  beforeAll(async () => {
    keyFolder = await mkdtemp(join(tmpdir(), 'paperflow-quota-'));
  });
  afterAll(async () => {
    await rm(keyFolder, { recursive: true, force: true });
  });
  async function aService() {
    const keyFile = join(keyFolder, 'key');
    await ensureLocalKeyFile(keyFile);
    return new SubscriptionService({
      store: new DynamoSubscriptionStore(documentClient(), 'records'),
      quota: new DynamoSubscriptionQuota(documentClient(), 'records', { now: () => clock }),
      cipher: () => new SigningSecretCipher(new LocalFileDataKeys(keyFile)),
      releaseHeldDeliveries: async () => 0,
      endpointUrlPolicy: strictOutboundUrlPolicy,
    });
  }
  const request = { name: 'Hook', endpointUrl: 'https://hooks.example.com/h', eventTypes: ['workflow.run.failed' as const] };

  it('reserves before writing, and writes the secret only encrypted', async () => {
    documents.on(UpdateCommand).resolves({});
    documents.on(PutCommand).resolves({});

    const created = await (await aService()).createSubscription('ws_a', request);

    const item = documents.commandCalls(PutCommand)[0]!.args[0].input.Item!;
    expect(documents.call(0).args[0]).toBeInstanceOf(UpdateCommand);
    expect(item).toMatchObject({ pk: `SUB#${created.id}`, sk: 'SUBSCRIPTION', gsi1pk: 'WS#ws_a#SUB', gsi1sk: `${created.createdAt}#${created.id}`, workspaceId: 'ws_a' });
    expect(item).not.toHaveProperty('signingSecret');
    expect(JSON.stringify(item)).not.toContain(created.signingSecret.slice(6));
  });

  it('takes no slot when the workspace is full, and writes nothing', async () => {
    quotaTable({ slots: fullOf(() => minutesAgo(60)), subscriptions: Array.from({ length: 25 }, (_, n) => subscriptionId(n)) });

    await expect((await aService()).createSubscription('ws_a', request)).rejects.toThrow(ConflictError);
    expect(documents.commandCalls(PutCommand)).toHaveLength(0);
  });

  it('gives the slot back when the write fails after the reservation', async () => {
    documents.on(UpdateCommand).resolves({});
    documents.on(PutCommand).rejects(throttled());

    await expect((await aService()).createSubscription('ws_a', request)).rejects.toThrow(DownstreamError);
    expect(quotaUpdates().map((input) => [input.UpdateExpression, input.ExpressionAttributeNames])).toEqual([
      ['SET slots.#id = :at', { '#id': expect.stringMatching(/^sub_/) }],
      ['REMOVE slots.#id', { '#id': quotaUpdates()[0]!.ExpressionAttributeNames!['#id'] }],
    ]);
  });

  it('frees the slot after a delete, and not when there was nothing to delete', async () => {
    documents.on(DeleteCommand).resolvesOnce({}).rejects(conditionalFailure());
    documents.on(UpdateCommand).resolves({});
    const service = await aService();

    await service.deleteSubscription('ws_a', 'sub_01JZ0000000000000000000000');
    await expect(service.deleteSubscription('ws_a', 'sub_01JZ0000000000000000000000')).rejects.toThrow(NotFoundError);

    expect(quotaUpdates().map((input) => [input.UpdateExpression, input.ExpressionAttributeNames])).toEqual([['REMOVE slots.#id', { '#id': 'sub_01JZ0000000000000000000000' }]]);
    expect(documents.commandCalls(DeleteCommand)[0]!.args[0].input).toMatchObject({ ConditionExpression: 'attribute_exists(pk) AND #workspaceId = :workspaceId', ExpressionAttributeValues: { ':workspaceId': 'ws_a' } });
  });

  it('a delete whose slot release fails still answers, and the slot is freed by the first create that needs it', async () => {
    const remaining = Array.from({ length: 25 }, (_, n) => subscriptionId(n)).slice(1);
    const table = quotaTable({ slots: fullOf(() => minutesAgo(60)), subscriptions: remaining });
    documents.on(DeleteCommand).resolves({});
    documents.on(PutCommand).callsFake((input) => {
      table.subscriptions.add(input.Item.id);
      return {};
    });
    const service = await aService();
    // The delete lands; the release that should follow is throttled (the leak this guards against).
    documents.on(UpdateCommand, { UpdateExpression: 'REMOVE slots.#id', ConditionExpression: 'attribute_exists(slots)' }).rejectsOnce(throttled());

    await expect(service.deleteSubscription('ws_a', subscriptionId(0))).resolves.toBeUndefined();
    expect(table.slots).toHaveProperty(subscriptionId(0));

    const created = await service.createSubscription('ws_a', request);

    expect(table.slots).not.toHaveProperty(subscriptionId(0));
    expect(table.slots).toHaveProperty(created.id);
    expect(Object.keys(table.slots!)).toHaveLength(25);
    await expect(service.createSubscription('ws_a', request)).rejects.toThrow(ConflictError);
  });

  it('answers 404 for ids that cannot exist without asking the table', async () => {
    const service = await aService();

    for (const id of ['sub_1', 'ext_01JZ0000000000000000000000', 'x'.repeat(2000)]) {
      await expect(service.getSubscription('ws_a', id)).rejects.toThrow(NotFoundError);
      await expect(service.updateSubscription('ws_a', id, { name: 'x' })).rejects.toThrow(NotFoundError);
      await expect(service.deleteSubscription('ws_a', id)).rejects.toThrow(NotFoundError);
      await expect(service.signingSecretOf('ws_a', id)).rejects.toThrow(NotFoundError);
    }
    expect(documents.calls()).toHaveLength(0);
  });
});
