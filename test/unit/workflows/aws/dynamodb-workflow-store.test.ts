import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoDbWorkflowStore } from '../../../../src/workflows/aws/dynamodb-workflow-store.ts';
import { validateWorkflowDefinition, type WorkflowDefinition } from '../../../../src/workflows/workflow-definition.ts';
import { publishWorkflow } from '../../../../src/workflows/workflow-publishing.ts';
import { strictOutboundUrlPolicy } from '../../../../src/outbound/outbound-settings.ts';

const documents = mockClient(DynamoDBDocumentClient);
const documentClient = () => DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const conditionalFailure = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: { httpStatusCode: 400 } });
const fixedNow = () => new Date('2026-11-24T12:00:00.000Z');
const store = () => new DynamoDbWorkflowStore(documentClient(), 'records', fixedNow);

function definition(overrides: Record<string, unknown> = {}): WorkflowDefinition {
  const result = validateWorkflowDefinition({ id: 'wf_intake', name: 'Intake', steps: [{ id: 'a', type: 'transform', with: { x: 1 } }], ...overrides });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.definition;
}

const newestVersionItem = (version: number) => ({ Items: [{ workflowId: 'wf_intake', version, definition: definition(), source: '', publishedAt: 'earlier' }] });
const versionPuts = () => documents.commandCalls(PutCommand).map((call) => call.args[0].input);

beforeEach(() => {
  documents.reset();
});

describe('WorkflowStore.publish', () => {
  it('writes version 1 and creates the enabled workflow record when none exists', async () => {
    documents.on(QueryCommand).resolves({ Items: [] });
    documents.on(PutCommand).resolves({});
    documents.on(UpdateCommand).resolves({});

    const stored = await store().publish('ws_a', 'wf_intake', definition(), 'name: Intake');

    expect(stored.version).toBe(1);
    expect(versionPuts()).toEqual([
      expect.objectContaining({
        Item: expect.objectContaining({ pk: 'WS#ws_a', sk: 'WORKFLOW_VERSION#wf_intake#0000000001', version: 1, source: 'name: Intake' }),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ]);
    const recordUpdate = documents.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(recordUpdate).toMatchObject({
      Key: { pk: 'WS#ws_a', sk: 'WORKFLOW#wf_intake' },
      ConditionExpression: 'attribute_not_exists(latestVersion) OR latestVersion < :version',
      ExpressionAttributeValues: expect.objectContaining({ ':version': 1, ':enabled': 'enabled', ':name': 'Intake' }),
    });
    expect(recordUpdate.UpdateExpression).toContain('#status = if_not_exists(#status, :enabled)');
  });

  it('takes the next number when a concurrent publish wrote the one it read first', async () => {
    documents.on(QueryCommand).resolvesOnce(newestVersionItem(3)).resolves(newestVersionItem(4));
    documents.on(PutCommand).rejectsOnce(conditionalFailure()).resolves({});
    documents.on(UpdateCommand).resolves({});

    const stored = await store().publish('ws_a', 'wf_intake', definition(), '');

    expect(stored.version).toBe(5);
    expect(versionPuts().map((input) => input.Item!.sk)).toEqual(['WORKFLOW_VERSION#wf_intake#0000000004', 'WORKFLOW_VERSION#wf_intake#0000000005']);
  });

  it('leaves the record alone when a newer version already moved it', async () => {
    documents.on(QueryCommand).resolves(newestVersionItem(1));
    documents.on(PutCommand).resolves({});
    documents.on(UpdateCommand).rejects(conditionalFailure());

    await expect(store().publish('ws_a', 'wf_intake', definition(), '')).resolves.toMatchObject({ version: 2 });
  });

  it('gives up with a conflict after many refused numbers rather than looping', async () => {
    documents.on(QueryCommand).resolves(newestVersionItem(1));
    documents.on(PutCommand).rejects(conditionalFailure());

    await expect(store().publish('ws_a', 'wf_intake', definition(), '')).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(versionPuts()).toHaveLength(10);
  });
});

describe('WorkflowStore reads', () => {
  it('lists a workspace by a Query of its partition, never a Scan', async () => {
    documents.on(QueryCommand).resolves({ Items: [] });

    await store().list('ws_a');

    expect(documents.commandCalls(QueryCommand)[0]!.args[0].input).toMatchObject({
      KeyConditionExpression: 'pk = :partition AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':partition': 'WS#ws_a', ':prefix': 'WORKFLOW#' },
    });
  });

  it('answers undefined when enabling or disabling a workflow the workspace does not have', async () => {
    documents.on(UpdateCommand).rejects(conditionalFailure());

    await expect(store().setStatus('ws_a', 'wf_missing', 'disabled')).resolves.toBeUndefined();
  });
});

describe('publishWorkflow', () => {
  it('refuses a for_each naming a workflow the workspace does not have, writing nothing', async () => {
    documents.on(GetCommand).resolves({});
    const text = JSON.stringify({ name: 'Fan', steps: [{ id: 'fan', type: 'for_each', with: { items: '{{ body }}', workflowId: 'wf_child' } }] });

    const result = await publishWorkflow(store(), 'ws_a', text, 'json', { urlPolicy: strictOutboundUrlPolicy });

    expect(result).toEqual({ ok: false, problems: [{ path: 'steps[0].with.workflowId', message: 'workflow "wf_child" is not published in workspace ws_a' }] });
    expect(versionPuts()).toEqual([]);
  });

  it('gives a definition without id a new wf_ ULID id', async () => {
    documents.on(QueryCommand).resolves({ Items: [] });
    documents.on(PutCommand).resolves({});
    documents.on(UpdateCommand).resolves({});

    const result = await publishWorkflow(store(), 'ws_a', JSON.stringify({ name: 'New', steps: [{ id: 'a', type: 'transform', with: {} }] }), 'json', { urlPolicy: strictOutboundUrlPolicy });

    expect(result).toMatchObject({ ok: true, workflowId: expect.stringMatching(/^wf_[0-9A-HJKMNP-TV-Z]{26}$/), version: 1 });
  });
});
