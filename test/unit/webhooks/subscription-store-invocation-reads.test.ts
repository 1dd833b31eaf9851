import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoSubscriptionStore } from '../../../src/webhooks/aws/dynamodb-subscription-store.ts';

// The subscription store as the delivery consumer builds it for one invocation
// (`batchReadsForOneInvocation`), against a mocked table: the fan-outs of its records list the
// workspace's subscriptions once between them.

const documents = mockClient(DynamoDBDocumentClient);
beforeEach(() => documents.reset());

const storeFor = (options: { batchReadsForOneInvocation?: boolean }) =>
  new DynamoSubscriptionStore(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })), 'records', options);
const subscriptionItem = (index: number) => ({
  id: `sub_01JZ00000000000000000000A${index}`,
  workspaceId: 'ws_listed',
  name: `receiver ${index}`,
  endpointUrl: `https://receiver.example/${index}`,
  eventTypes: ['document-insights.extraction.completed'],
  filters: {},
  status: 'active',
  createdAt: '2026-05-01T08:00:00.000Z',
  updatedAt: '2026-05-01T08:00:00.000Z',
});

describe('DynamoSubscriptionStore.listWorkspace within one consumer invocation', () => {
  it('queries the workspace once for all the fan-outs that ask, and answers each the same subscriptions', async () => {
    documents.on(QueryCommand).resolves({ Items: [subscriptionItem(1), subscriptionItem(2)] });
    const store = storeFor({ batchReadsForOneInvocation: true });

    const listings = await Promise.all(Array.from({ length: 10 }, () => store.listWorkspace('ws_listed')));
    const later = await store.listWorkspace('ws_listed');

    expect(documents.commandCalls(QueryCommand)).toHaveLength(1);
    for (const listing of [...listings, later]) expect(listing.map(({ id }) => id)).toEqual([subscriptionItem(1).id, subscriptionItem(2).id]);
  });

  it('asks again after a failed listing, and for another workspace', async () => {
    documents.on(QueryCommand).rejectsOnce(new Error('connection reset')).resolves({ Items: [subscriptionItem(1)] });
    const store = storeFor({ batchReadsForOneInvocation: true });

    await expect(store.listWorkspace('ws_listed')).rejects.toThrow();
    expect((await store.listWorkspace('ws_listed')).map(({ id }) => id)).toEqual([subscriptionItem(1).id]);
    await store.listWorkspace('ws_other');

    expect(documents.commandCalls(QueryCommand).map((call) => call.args[0].input.ExpressionAttributeValues)).toEqual([
      { ':partition': expect.stringContaining('ws_listed') },
      { ':partition': expect.stringContaining('ws_listed') },
      { ':partition': expect.stringContaining('ws_other') },
    ]);
  });

  it('outside an invocation (the API), lists afresh every time', async () => {
    documents.on(QueryCommand).resolves({ Items: [subscriptionItem(1)] });
    const store = storeFor({});

    await store.listWorkspace('ws_listed');
    await store.listWorkspace('ws_listed');

    expect(documents.commandCalls(QueryCommand)).toHaveLength(2);
  });
});

describe('DynamoSubscriptionStore.getForDelivery within one consumer invocation', () => {
  const secretCiphertext = { keyProvider: 'local-file', encryptedDataKey: 'a2V5', iv: 'aXY=', ciphertext: 'c2VjcmV0', authTag: 'dGFn' };
  const withSecret = (index: number) => ({ pk: `SUB#${subscriptionItem(index).id}`, sk: 'SUBSCRIPTION', ...subscriptionItem(index), secretCiphertext });

  it('reads and parses each subscription once for all the deliveries that ask, and still answers another workspace as missing', async () => {
    documents.on(BatchGetCommand).resolves({ Responses: { records: [withSecret(1)] } });
    const store = storeFor({ batchReadsForOneInvocation: true });

    const answers = await Promise.all(Array.from({ length: 25 }, () => store.getForDelivery('ws_listed', subscriptionItem(1).id)));
    const later = await store.getForDelivery('ws_listed', subscriptionItem(1).id);
    const foreign = await store.getForDelivery('ws_other', subscriptionItem(1).id);

    expect(documents.commandCalls(BatchGetCommand)).toHaveLength(1);
    expect(answers[0]).toMatchObject({ record: { id: subscriptionItem(1).id, workspaceId: 'ws_listed', status: 'active' }, secretCiphertext });
    // The same parsed answer each time: one parse of the item per invocation.
    for (const answer of [...answers, later]) expect(answer).toBe(answers[0]);
    expect(foreign).toBeUndefined();
  });

  it('asks again after a failed read', async () => {
    documents.on(BatchGetCommand).rejectsOnce(new Error('connection reset')).resolves({ Responses: { records: [withSecret(1)] } });
    const store = storeFor({ batchReadsForOneInvocation: true });

    await expect(store.getForDelivery('ws_listed', subscriptionItem(1).id)).rejects.toThrow();
    const retried = await store.getForDelivery('ws_listed', subscriptionItem(1).id);

    expect(retried?.record.id).toBe(subscriptionItem(1).id);
    expect(documents.commandCalls(BatchGetCommand)).toHaveLength(2);
  });
});
