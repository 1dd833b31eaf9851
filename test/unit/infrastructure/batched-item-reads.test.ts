import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { BatchedItemReads } from '../../../src/infrastructure/batched-item-reads.ts';
import { documentClient } from '../../support/mocked-records.ts';

const client = documentClient();
const dynamo = mockClient(client);
const table = 'records';
const key = (id: string) => ({ pk: `DLV#${id}`, sk: 'DELIVERY' });
const item = (id: string) => ({ ...key(id), id, status: 'PENDING' });

beforeEach(() => dynamo.reset());

describe('BatchedItemReads', () => {
  it('sends the gets of one turn as one consistent BatchGetItem, each caller getting its own item or undefined', async () => {
    dynamo.on(BatchGetCommand).resolves({ Responses: { [table]: [item('b'), item('a')] } });
    const reads = new BatchedItemReads(client, table, { consistentRead: true });

    const answers = await Promise.all([reads.get(key('a')), reads.get(key('b')), reads.get(key('missing')), reads.get(key('a'))]);

    expect(answers).toEqual([item('a'), item('b'), undefined, item('a')]);
    const calls = dynamo.commandCalls(BatchGetCommand);
    expect(calls).toHaveLength(1);
    // A key asked twice is sent once: BatchGetItem refuses duplicate keys.
    expect(calls[0]!.args[0].input.RequestItems).toEqual({ [table]: { Keys: [key('a'), key('b'), key('missing')], ConsistentRead: true } });
  });

  it('asks again for the keys DynamoDB left unprocessed', async () => {
    dynamo
      .on(BatchGetCommand)
      .resolvesOnce({ Responses: { [table]: [item('a')] }, UnprocessedKeys: { [table]: { Keys: [key('b')] } } })
      .resolvesOnce({ Responses: { [table]: [item('b')] } });
    const reads = new BatchedItemReads(client, table, { consistentRead: false });

    expect(await Promise.all([reads.get(key('a')), reads.get(key('b'))])).toEqual([item('a'), item('b')]);
    expect(dynamo.commandCalls(BatchGetCommand).map((call) => call.args[0].input.RequestItems![table]!.Keys)).toEqual([[key('a'), key('b')], [key('b')]]);
  });

  it('refuses an answered item whose key is not a string instead of filing it under a made-up key', async () => {
    dynamo.on(BatchGetCommand).resolves({ Responses: { [table]: [{ pk: 7, sk: 'DELIVERY', id: 'a' }] } });
    const reads = new BatchedItemReads(client, table, { consistentRead: true });

    await expect(reads.get(key('a'))).rejects.toThrow(/key attribute pk is not a string/);
  });

  it('splits more than 100 keys into several calls and projects the attributes asked for, with the key', async () => {
    dynamo.on(BatchGetCommand).callsFake((input) => ({ Responses: { [table]: input.RequestItems[table].Keys } }));
    const reads = new BatchedItemReads(client, table, { consistentRead: true, attributes: ['status'] });

    const answers = await Promise.all(Array.from({ length: 150 }, (_, index) => reads.get(key(String(index)))));

    expect(answers.every((answer, index) => answer?.pk === `DLV#${index}`)).toBe(true);
    const calls = dynamo.commandCalls(BatchGetCommand).map((call) => call.args[0].input.RequestItems![table]!);
    expect(calls.map((request) => request.Keys!.length)).toEqual([100, 50]);
    expect(calls[0]).toMatchObject({ ProjectionExpression: '#a0, #a1, #a2', ExpressionAttributeNames: { '#a0': 'pk', '#a1': 'sk', '#a2': 'status' } });
  });

  it('reads again on every turn unless told to remember, and forgets a failed read', async () => {
    dynamo.on(BatchGetCommand).resolves({ Responses: { [table]: [item('a')] } });
    const fresh = new BatchedItemReads(client, table, { consistentRead: true });
    await fresh.get(key('a'));
    await fresh.get(key('a'));
    expect(dynamo.commandCalls(BatchGetCommand)).toHaveLength(2);

    dynamo.reset();
    dynamo.on(BatchGetCommand).rejectsOnce(new Error('throttled')).resolves({ Responses: { [table]: [item('a')] } });
    const remembering = new BatchedItemReads(client, table, { consistentRead: false, remember: true });
    await expect(remembering.get(key('a'))).rejects.toThrow('throttled');
    expect(await remembering.get(key('a'))).toEqual(item('a'));
    expect(await remembering.get(key('a'))).toEqual(item('a'));
    expect(dynamo.commandCalls(BatchGetCommand)).toHaveLength(2);
  });
});
