import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ExecutionAlreadyExists, SFNClient, StartExecutionCommand, InvalidArn } from '@aws-sdk/client-sfn';
import { BatchWriteCommand, DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { StepFunctionsExtractionExecutions } from '../../../src/extractions/aws/step-functions-extraction-executions.ts';
import { DynamoDbExtractionOutputs } from '../../../src/extractions/aws/dynamodb-extraction-outputs.ts';
import { DynamoDbExtractionStore } from '../../../src/extractions/aws/dynamodb-extraction-store.ts';
import type { ExtractionRecord } from '../../../src/extractions/extraction.ts';
import { conditionalFailure, documentClient, failedExtractionRecord } from '../../support/mocked-records.ts';

const sfn = mockClient(SFNClient);
const documents = mockClient(DynamoDBDocumentClient);
const s3 = mockClient(S3Client);

beforeEach(() => {
  sfn.reset();
  documents.reset();
  s3.reset();
});


const record = failedExtractionRecord;

describe('StepFunctionsExtractionExecutions', () => {
  const executions = () => new StepFunctionsExtractionExecutions(new SFNClient({ region: 'us-east-1' }), 'arn:aws:states:us-east-1:1:stateMachine:x');

  it('starts one execution per generation, named after it', async () => {
    sfn.on(StartExecutionCommand).resolves({ executionArn: 'arn', startDate: new Date() });

    await executions().start(record);

    expect(sfn.commandCalls(StartExecutionCommand)[0]!.args[0].input).toEqual({
      stateMachineArn: 'arn:aws:states:us-east-1:1:stateMachine:x',
      name: `${record.id}-g2`,
      input: JSON.stringify({ workspaceId: 'ws_a', extractionId: record.id, generation: 2 }),
    });
  });

  it('treats an execution that already exists as started (a retried start)', async () => {
    sfn.on(StartExecutionCommand).rejects(new ExecutionAlreadyExists({ message: 'exists', $metadata: {} }));

    await expect(executions().start(record)).resolves.toBeUndefined();
  });

  it('passes any other failure on', async () => {
    sfn.on(StartExecutionCommand).rejects(new InvalidArn({ message: 'bad arn', $metadata: {} }));

    await expect(executions().start(record)).rejects.toThrow('bad arn');
  });
});

describe('DynamoDbExtractionOutputs', () => {
  it('keeps a small output in the table and a large one in S3 under the workspace prefix', async () => {
    documents.on(PutCommand).resolves({});
    s3.on(PutObjectCommand).resolves({});
    const store = new DynamoDbExtractionOutputs(documentClient(), 'records', new S3Client({ region: 'us-east-1' }), 'files', 1_000);
    const small = { fieldCount: 0, fields: [] };
    const large = { fieldCount: 1, fields: [{ id: 'fld_1', name: 'note', type: 'string', value: 'x'.repeat(2_000), metadata: { extracted: true } }] };

    await store.put(record, small, new Map());
    await store.put(record, large, new Map());

    const puts = documents.commandCalls(PutCommand).map((call) => call.args[0].input.Item);
    expect(puts[0]).toMatchObject({ pk: `EXT#${record.id}`, sk: 'OUTPUT', output: small });
    expect(puts[1]).toMatchObject({ sk: 'OUTPUT', objectKey: `extraction-outputs/ws_a/${record.id}/output-2.json` });
    expect(puts[1]!.output).toBeUndefined();
    expect(s3.commandCalls(PutObjectCommand)[0]!.args[0].input).toMatchObject({ Bucket: 'files', Key: `extraction-outputs/ws_a/${record.id}/output-2.json` });
  });
});

describe('DynamoDbExtractionStore', () => {
  const stored = { pk: `EXT#${record.id}`, sk: 'EXTRACTION', ...record, revision: 4, countedAs: 'FAILED' };

  it('retries a write that lost the optimistic lock with what is stored now', async () => {
    documents.on(GetCommand).resolves({ Item: stored });
    documents.on(PutCommand).rejectsOnce(conditionalFailure()).resolves({});
    documents.on(UpdateCommand).resolves({});
    const store = new DynamoDbExtractionStore(documentClient(), 'records');

    const result = await store.mutate(record.id, (current) => ({ ...current, reviewRequired: true }));

    expect(result.applied).toBe(true);
    const puts = documents.commandCalls(PutCommand);
    expect(puts).toHaveLength(2);
    expect(puts[1]!.args[0].input).toMatchObject({ ConditionExpression: 'revision = :revision', ExpressionAttributeValues: { ':revision': 4 } });
    expect(puts[1]!.args[0].input.Item).toMatchObject({ revision: 5, reviewRequired: true, countedAs: 'FAILED' });
  });

  it('finishes an abandoned counter claim without counting it twice', async () => {
    const abandoned = { ...stored, status: 'FAILED', countedAs: 'PROCESSING', pendingCount: { token: `${record.id}#3#1000`, claimedAt: 1_000, from: 'PROCESSING', to: 'FAILED' } };
    documents.on(GetCommand).resolvesOnce({ Item: abandoned }).resolves({ Item: { ...stored, revision: 6 } });
    documents
      .on(UpdateCommand)
      .rejectsOnce(conditionalFailure()) // the counters already carry this token: applied before the claimant stopped
      .resolves({});
    const store = new DynamoDbExtractionStore(documentClient(), 'records', () => 1_000 + 61_000);

    await store.syncCounters(record);

    const updates = documents.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(updates[0]).toMatchObject({ Key: { pk: 'WS#ws_a#EXTCOUNTS', sk: 'COUNTS' }, ConditionExpression: 'attribute_not_exists(#tokens) OR NOT contains(#tokens, :token)' });
    expect(updates[1]).toMatchObject({ Key: { pk: `EXT#${record.id}` }, ConditionExpression: 'pendingCount.#token = :token' });
    expect(updates[1]!.UpdateExpression).toContain('REMOVE pendingCount');
    expect(updates[2]).toMatchObject({ Key: { pk: 'WS#ws_a#EXTCOUNTS' }, UpdateExpression: 'DELETE #tokens :tokens' });
    expect(updates.filter((update) => String(update.UpdateExpression).startsWith('ADD'))).toHaveLength(1);
  });

  it('leaves a fresh claim to its claimant', async () => {
    const claimed = { ...stored, status: 'FAILED', countedAs: 'PROCESSING', pendingCount: { token: `${record.id}#3#1000`, claimedAt: 1_000, from: 'PROCESSING', to: 'FAILED' } };
    documents.on(GetCommand).resolves({ Item: claimed });
    const store = new DynamoDbExtractionStore(documentClient(), 'records', () => 1_000 + 5_000);

    await store.syncCounters(record);

    expect(documents.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('does not touch the counters when the record is already counted as it is', async () => {
    documents.on(GetCommand).resolves({ Item: { ...stored } });
    documents.on(UpdateCommand).resolves({});
    const store = new DynamoDbExtractionStore(documentClient(), 'records');

    await store.syncCounters(record);

    const updates = documents.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(updates.every((update) => update.Key!.pk === `EXT#${record.id}`)).toBe(true);
    expect(updates.map((update) => update.UpdateExpression)).toEqual(['REMOVE gsi6pk, gsi6sk']);
  });
});

describe('DynamoDbExtractionStore.create', () => {
  const queued: ExtractionRecord = { ...record, status: 'QUEUED', generation: 1, completedAt: undefined, error: undefined, labels: { customer: 'acme' } };

  it('writes nothing when a label cannot be encoded into its index key', async () => {
    const store = new DynamoDbExtractionStore(documentClient(), 'records');

    await expect(store.create({ ...queued, labels: { '\udfff': 'v' } })).rejects.toThrow(URIError);

    expect(documents.calls()).toHaveLength(0);
  });

  it('takes the record back out when its label items cannot be written', async () => {
    documents.on(PutCommand).resolves({});
    documents.on(BatchWriteCommand).rejectsOnce(new Error('throttled')).resolves({});
    documents.on(DeleteCommand).resolves({});
    const store = new DynamoDbExtractionStore(documentClient(), 'records');

    await expect(store.create(queued)).rejects.toThrow('throttled');

    const withdrawn = documents.commandCalls(BatchWriteCommand)[1]!.args[0].input.RequestItems!.records!;
    expect(withdrawn.map((request) => request.DeleteRequest?.Key?.pk)).toEqual([expect.stringMatching(/^WS#ws_a#EXTLABEL#customer=/), 'WS#ws_a#EXTLABELKEY#customer']);
    expect(documents.commandCalls(DeleteCommand)[0]!.args[0].input).toMatchObject({ Key: { pk: `EXT#${record.id}`, sk: 'EXTRACTION' }, ExpressionAttributeValues: { ':created': 1 } });
    expect(documents.commandCalls(UpdateCommand)).toHaveLength(0); // the counters were never touched
  });

  it('stores labels named "constructor" and "prototype" as a map', async () => {
    documents.on(PutCommand).resolves({});
    documents.on(BatchWriteCommand).resolves({});
    documents.on(GetCommand).resolves({ Item: { pk: `EXT#${record.id}`, sk: 'EXTRACTION', ...queued, revision: 1, countedAs: 'QUEUED' } });
    const store = new DynamoDbExtractionStore(documentClient(), 'records');

    await store.create({ ...queued, labels: { constructor: 'x', prototype: 'y' } });

    const item = documents.commandCalls(PutCommand)[0]!.args[0].input.Item!;
    expect(item.labels).toEqual(new Map([['constructor', 'x'], ['prototype', 'y']]));
  });
});
