import { BatchWriteCommand, DynamoDBDocumentClient, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoDbRunStore, listQueryOf, type RunValueObjects } from '../../../../src/workflows/aws/dynamodb-run-store.ts';
import type { RunRecord, StepRecord } from '../../../../src/workflows/workflow-run.ts';
import { conditionalFailure, documentClient } from '../../../support/mocked-records.ts';

const documents = mockClient(DynamoDBDocumentClient);
const fixedNow = () => new Date('2026-11-24T12:00:10.000Z');
const storedObjects = new Map<string, string>();
const objects: RunValueObjects = {
  put: async (objectKey, body) => void storedObjects.set(objectKey, body),
  get: async (objectKey) => storedObjects.get(objectKey)!,
};
const store = (inlineLimitBytes?: number) => new DynamoDbRunStore(documentClient(), 'records', objects, fixedNow, inlineLimitBytes);

const record: RunRecord = {
  id: 'run_01JZ0000000000000000000000',
  workspaceId: 'ws_a',
  workflow: { id: 'wf_a', name: 'A', version: 1 },
  status: 'PROCESSING',
  createdAt: '2026-11-24T12:00:00.000Z',
  updatedAt: '2026-11-24T12:00:00.000Z',
  stepsCompleted: 0,
  stepsTotal: 1,
};
const step: StepRecord = { runId: record.id, stepId: 'a', index: 0, name: 'a', type: 'transform', status: 'QUEUED' };
const definition = { name: 'A', steps: [{ id: 'a', type: 'transform', needs: [], with: {} }] } as never;

const updates = () => documents.commandCalls(UpdateCommand).map((call) => call.args[0].input);

beforeEach(() => {
  documents.reset();
  storedObjects.clear();
});

describe('RunStore.create', () => {
  it('writes the steps, then the run once, listed and in the attention index', async () => {
    documents.on(BatchWriteCommand).resolves({});
    documents.on(PutCommand).resolves({});

    await store().create({ record, definition, body: { a: 1 } }, [step]);

    const put = documents.commandCalls(PutCommand)[0]!.args[0].input;
    expect(documents.commandCalls(BatchWriteCommand)).toHaveLength(1);
    expect(put.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(put.Item).toMatchObject({
      pk: 'WS#ws_a',
      sk: `RUN#${record.id}`,
      bodyJson: '{"a":1}',
      gsi1pk: 'WS#ws_a#RUN',
      gsi2pk: 'WS#ws_a#RUN#STATUS#PROCESSING',
      gsi3pk: 'WS#ws_a#RUN#WF#wf_a',
      gsi6pk: 'RUN#ATTENTION',
    });
  });

  it('keeps a nested run out of the list indexes', async () => {
    documents.on(BatchWriteCommand).resolves({});
    documents.on(PutCommand).resolves({});

    await store().create({ record: { ...record, parent: { runId: 'run_parent', stepId: 'each', index: 0 } }, definition, body: 1 }, [step]);

    const item = documents.commandCalls(PutCommand)[0]!.args[0].input.Item!;
    expect(Object.keys(item).filter((name) => /^gsi[1-5]pk$/.test(name))).toEqual([]);
    expect(item.gsi6pk).toBe('RUN#ATTENTION');
  });

  it('puts a large input in S3 and keeps its key', async () => {
    documents.on(BatchWriteCommand).resolves({});
    documents.on(PutCommand).resolves({});

    await store(10).create({ record, definition, body: { text: 'more than ten bytes' } }, [step]);

    const item = documents.commandCalls(PutCommand)[0]!.args[0].input.Item!;
    expect(item.bodyJson).toBeUndefined();
    expect(item.bodyObjectKey).toBe(`workflow-runs/ws_a/${record.id}/body.json`);
    expect(storedObjects.get(item.bodyObjectKey as string)).toBe('{"text":"more than ten bytes"}');
  });

  it('answers false, not an error, when a nested run of that id exists (a retried start)', async () => {
    documents.on(BatchWriteCommand).resolves({});
    documents.on(PutCommand).rejects(conditionalFailure());

    await expect(store().createIfAbsent({ record, definition, body: null }, [step])).resolves.toBe(false);
  });

  it('passes other DynamoDB errors on', async () => {
    documents.on(BatchWriteCommand).rejects(Object.assign(new Error('slow down'), { name: 'ProvisionedThroughputExceededException' }));

    await expect(store().create({ record, definition, body: null }, [step])).rejects.toThrow('slow down');
  });
});

describe('step transitions', () => {
  it('completes a step only from QUEUED or PROCESSING, and reports a step already ended', async () => {
    documents.on(UpdateCommand).resolvesOnce({}).rejectsOnce(conditionalFailure());

    const first = await store().settleStep('ws_a', step, { status: 'COMPLETED', output: { x: 1 } });
    const again = await store().settleStep('ws_a', step, { status: 'COMPLETED', output: { x: 2 } });

    expect([first, again]).toEqual([true, false]);
    expect(updates()[0]).toMatchObject({
      Key: { pk: 'WS#ws_a', sk: `RUN#${record.id}#STEP#0000` },
      ConditionExpression: '#status IN (:queued, :processing)',
      ExpressionAttributeValues: expect.objectContaining({ ':status': 'COMPLETED', ':outputJson': '{"x":1}' }),
    });
  });

  it('skips only a QUEUED step, and records a failure with its code', async () => {
    documents.on(UpdateCommand).resolves({});

    await store().settleStep('ws_a', step, { status: 'SKIPPED', message: 'no' });
    await store().settleStep('ws_a', step, { status: 'FAILED', failureCode: 'WORKFLOW_INPUT_INVALID', message: 'bad' });

    expect(updates()[0]!.ConditionExpression).toBe('#status = :queued');
    expect(updates()[0]!.ExpressionAttributeValues).not.toHaveProperty(':processing');
    expect(updates()[1]!.ExpressionAttributeValues).toMatchObject({ ':status': 'FAILED', ':code': 'WORKFLOW_INPUT_INVALID', ':message': 'bad' });
  });

  it('moves progress only forward, while the run is in flight', async () => {
    documents.on(UpdateCommand).rejects(conditionalFailure());

    await expect(store().recordProgress('ws_a', record.id, 1)).resolves.toBeUndefined();
    expect(updates()[0]!.ConditionExpression).toBe('#status = :processing AND stepsCompleted < :completed');
  });
});

describe('RunStore.settleRun', () => {
  it('writes the terminal state once, with durations and its list keys', async () => {
    documents.on(UpdateCommand).resolvesOnce({}).rejectsOnce(conditionalFailure());
    const terminal = { status: 'FAILED' as const, error: { code: 'WORKFLOW_STEP_FAILED' as const, message: 'x' }, stepsCompleted: 0, computedDurationMs: 42 };

    const first = await store().settleRun('ws_a', record, terminal);
    const second = await store().settleRun('ws_a', record, { ...terminal, status: 'CLOSED' });

    expect([first, second]).toEqual([true, false]);
    expect(updates()[0]).toMatchObject({
      ConditionExpression: '#status = :processing',
      ExpressionAttributeValues: expect.objectContaining({
        ':status': 'FAILED',
        ':duration': 10_000,
        ':computed': 42,
        ':statusPartition': 'WS#ws_a#RUN#STATUS#FAILED',
        ':error': terminal.error,
      }),
    });
  });
});

describe('redrive', () => {
  it('reopens an ended run once per redrive count: back in the PROCESSING list and the attention index, its terminal fields removed', async () => {
    documents.on(UpdateCommand).resolvesOnce({}).rejectsOnce(conditionalFailure());
    const failed = { ...record, status: 'FAILED' as const };

    const first = await store().reopenRun('ws_a', failed, { from: ['FAILED'], stepsCompleted: 1 });
    const racing = await store().reopenRun('ws_a', failed, { from: ['FAILED'], stepsCompleted: 1 });

    expect(first).toEqual({ redriveCount: 1, redrivenAt: fixedNow().toISOString() });
    expect(racing).toBeUndefined();
    expect(updates()[0]).toMatchObject({
      ConditionExpression: '#status IN (:from0) AND attribute_not_exists(redriveCount)',
      UpdateExpression: expect.stringMatching(/ REMOVE completedAt, #error, durationMs, computedDurationMs, settledAt$/),
      ExpressionAttributeValues: expect.objectContaining({
        ':processing': 'PROCESSING',
        ':from0': 'FAILED',
        ':count': 1,
        ':completed': 1,
        ':statusPartition': 'WS#ws_a#RUN#STATUS#PROCESSING',
        ':attention': 'RUN#ATTENTION',
        ':notCompleted': `~#${record.id}`,
      }),
    });
  });

  it('reopens a nested run after its count, from FAILED or CLOSED, recording the parent\'s generation and staying out of the lists', async () => {
    documents.on(UpdateCommand).resolves({});
    const nested = { ...record, status: 'CLOSED' as const, parent: { runId: 'run_parent', stepId: 'each', index: 0 }, redriveCount: 2 };

    const reopened = await store().reopenRun('ws_a', nested, { from: ['FAILED', 'CLOSED'], stepsCompleted: 0, parentGeneration: 3 });

    expect(reopened?.redriveCount).toBe(3);
    expect(updates()[0]!.ConditionExpression).toBe('#status IN (:from0, :from1) AND redriveCount = :previous');
    expect(updates()[0]!.ExpressionAttributeValues).toMatchObject({ ':previous': 2, ':generation': 3 });
    expect(updates()[0]!.ExpressionAttributeValues).not.toHaveProperty(':statusPartition');
  });

  it('queues a step that did not complete again without its last outcome; a for_each step keeps its start (its nested runs\' ids)', async () => {
    documents.on(UpdateCommand).resolves({});

    await store().requeueStep('ws_a', { ...step, type: 'web_function' });
    await store().requeueStep('ws_a', { ...step, type: 'for_each', nestedRunCount: 3 });

    expect(updates()[0]).toMatchObject({
      UpdateExpression: 'SET #status = :queued REMOVE message, failureCode, completedAt, outputJson, outputObjectKey, startedAt',
      ConditionExpression: '#status IN (:failed, :skipped, :processing)',
    });
    expect(updates()[1]!.UpdateExpression).toBe('SET #status = :queued REMOVE message, failureCode, completedAt, outputJson, outputObjectKey');
  });
});

describe('listing', () => {
  it('reads a status by createdAt from its own partition with from/to in the key', () => {
    const query = listQueryOf('records', 'ws_a', { page: 0, size: 10, status: 'FAILED', workflowId: 'wf_a', from: '2026-01-01T00:00:00.000Z', to: '2026-02-01T00:00:00.000Z', sortBy: 'createdAt', sort: 'desc' });

    expect(query).toMatchObject({
      IndexName: 'gsi2',
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
      FilterExpression: '#workflow.#workflowId = :workflowId',
      ExpressionAttributeValues: { ':pk': 'WS#ws_a#RUN#STATUS#FAILED', ':from': '2026-01-01T00:00:00.000Z', ':to': '2026-02-01T00:00:00.000Z#~', ':workflowId': 'wf_a' },
      ScanIndexForward: false,
    });
  });

  it('reads by completedAt from the workspace index, filtering the rest', () => {
    const query = listQueryOf('records', 'ws_a', { page: 0, size: 10, status: 'COMPLETED', from: '2026-01-01T00:00:00.000Z', sortBy: 'completedAt', sort: 'asc' });

    expect(query).toMatchObject({ IndexName: 'gsi5', KeyConditionExpression: '#pk = :pk', FilterExpression: 'createdAt >= :from AND #status = :status', ScanIndexForward: true });
  });

  it('answers the exact total from a COUNT Query and the page after skipping', async () => {
    const item = (index: number) => ({ ...record, id: `run_${index}` });
    documents.on(QueryCommand).resolves({ Items: [item(1), item(2), item(3)] });
    documents.on(QueryCommand, { Select: 'COUNT' }).resolves({ Count: 3 });

    const page = await store().list('ws_a', { page: 1, size: 2, sortBy: 'createdAt', sort: 'desc' });

    expect(page.totalItems).toBe(3);
    expect(page.records.map((run) => run.id)).toEqual(['run_3']);
  });
});
