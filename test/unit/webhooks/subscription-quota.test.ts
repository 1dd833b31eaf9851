import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { ensureLocalKeyFile, LocalFileDataKeys } from '../../../src/infrastructure/local-file-data-keys.ts';
import { ConflictError, DownstreamError, NotFoundError } from '../../../src/platform/errors.ts';
import { SubscriptionQuota } from '../../../src/webhooks/subscription-quota.ts';
import { SigningSecretCipher } from '../../../src/webhooks/subscription-secrets.ts';
import { SubscriptionService } from '../../../src/webhooks/subscription-service.ts';
import { SubscriptionStore } from '../../../src/webhooks/subscription-store.ts';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const documents = mockClient(DynamoDBDocumentClient);
const documentClient = () => DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const conditionalFailure = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: { httpStatusCode: 400 } });
const throttled = () => Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException', $metadata: { httpStatusCode: 400 } });

const quotaUpdates = () => documents.commandCalls(UpdateCommand).map((call) => call.args[0].input).filter((input) => String(input.Key?.pk).endsWith('#SUBQUOTA'));

beforeEach(() => {
  documents.reset();
});

describe('SubscriptionQuota', () => {
  it('takes a slot by a conditional increment of the workspace counter', async () => {
    documents.on(UpdateCommand).resolves({});

    await new SubscriptionQuota(documentClient(), 'records').reserve('ws_a');

    expect(quotaUpdates()).toEqual([
      {
        TableName: 'records',
        Key: { pk: 'WS#ws_a#SUBQUOTA', sk: 'QUOTA' },
        UpdateExpression: 'ADD #count :one',
        ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':one': 1, ':limit': 25 },
      },
    ]);
  });

  it('answers 409 CONFLICT when the condition fails: the workspace is full', async () => {
    documents.on(UpdateCommand).rejects(conditionalFailure());

    await expect(new SubscriptionQuota(documentClient(), 'records').reserve('ws_a')).rejects.toThrow(ConflictError);
  });

  it('gives a slot back by a decrement that never goes below zero', async () => {
    documents.on(UpdateCommand).rejectsOnce(conditionalFailure()).resolves({});
    const quota = new SubscriptionQuota(documentClient(), 'records');

    await quota.release('ws_a');
    await quota.release('ws_a');

    expect(quotaUpdates()[0]).toMatchObject({ UpdateExpression: 'ADD #count :minusOne', ConditionExpression: '#count > :zero', ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 } });
  });

  it('turns a DynamoDB failure into a retryable 502', async () => {
    documents.on(UpdateCommand).rejects(throttled());

    await expect(new SubscriptionQuota(documentClient(), 'records').reserve('ws_a')).rejects.toThrow(DownstreamError);
  });

  it('lets exactly one of two creates racing for the last slot through', async () => {
    // The table's answer to two conditional increments of a counter at 24: the first applies, the second fails.
    let count = 24;
    documents.on(UpdateCommand).callsFake(() => {
      if (count >= 25) throw conditionalFailure();
      count += 1;
      return {};
    });
    const quota = new SubscriptionQuota(documentClient(), 'records');

    const outcomes = await Promise.allSettled([quota.reserve('ws_a'), quota.reserve('ws_a')]);

    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(outcomes.find((outcome) => outcome.status === 'rejected')).toMatchObject({ reason: expect.any(ConflictError) });
  });
});

describe('SubscriptionService with the quota', () => {
  async function aService() {
    const keyFile = join(await mkdtemp(join(tmpdir(), 'paperflow-quota-')), 'key');
    await ensureLocalKeyFile(keyFile);
    return new SubscriptionService({
      store: new SubscriptionStore(documentClient(), 'records'),
      quota: new SubscriptionQuota(documentClient(), 'records'),
      cipher: () => new SigningSecretCipher(new LocalFileDataKeys(keyFile)),
      releaseHeldDeliveries: async () => 0,
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
    documents.on(UpdateCommand).rejects(conditionalFailure());

    await expect((await aService()).createSubscription('ws_a', request)).rejects.toThrow(ConflictError);
    expect(documents.commandCalls(PutCommand)).toHaveLength(0);
  });

  it('gives the slot back when the write fails after the reservation', async () => {
    documents.on(UpdateCommand).resolves({});
    documents.on(PutCommand).rejects(throttled());

    await expect((await aService()).createSubscription('ws_a', request)).rejects.toThrow(DownstreamError);
    expect(quotaUpdates().map((input) => input.UpdateExpression)).toEqual(['ADD #count :one', 'ADD #count :minusOne']);
  });

  it('frees the slot after a delete, and not when there was nothing to delete', async () => {
    documents.on(DeleteCommand).resolvesOnce({}).rejects(conditionalFailure());
    documents.on(UpdateCommand).resolves({});
    const service = await aService();

    await service.deleteSubscription('ws_a', 'sub_01JZ0000000000000000000000');
    await expect(service.deleteSubscription('ws_a', 'sub_01JZ0000000000000000000000')).rejects.toThrow(NotFoundError);

    expect(quotaUpdates().map((input) => input.UpdateExpression)).toEqual(['ADD #count :minusOne']);
    expect(documents.commandCalls(DeleteCommand)[0]!.args[0].input).toMatchObject({ ConditionExpression: 'attribute_exists(pk) AND #workspaceId = :workspaceId', ExpressionAttributeValues: { ':workspaceId': 'ws_a' } });
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
