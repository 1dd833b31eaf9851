import { fileURLToPath } from 'node:url';
import {
  DescribeExecutionCommand,
  SendTaskFailureCommand,
  SendTaskHeartbeatCommand,
  SendTaskSuccessCommand,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLocalStepFunctions, type RunningLocalStepFunctions } from '../../src/local/local-step-functions.ts';

// Callback tasks (lambda:invoke.waitForTaskToken) and the plain lambda:invoke integration on the local
// endpoint, with the ASL files and handler modules of test/fixtures/step-functions.
const fixtures = fileURLToPath(new URL('../fixtures/step-functions/', import.meta.url));

interface ApprovalRequest {
  TaskToken: string;
  documentId: string;
}

let endpoint: RunningLocalStepFunctions;
let client: SFNClient;

beforeAll(async () => {
  endpoint = await startLocalStepFunctions({
    projectRoot: fixtures,
    stateMachines: [
      { name: 'callback', definitionFile: 'callback.asl.json', tasks: [{ placeholder: 'RequestApprovalFunctionArn', handler: 'request-approval.mjs' }] },
      { name: 'invoke', definitionFile: 'invoke.asl.json', tasks: [{ placeholder: 'DoubleFunctionArn', handler: 'double.mjs' }] },
    ],
    retryIntervalMs: 1,
  });
  client = new SFNClient({ endpoint: endpoint.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
});

afterAll(async () => {
  await endpoint?.close();
});

async function startApproval(documentId: string) {
  const started = await client.send(new StartExecutionCommand({ stateMachineArn: endpoint.stateMachineArns.callback, name: documentId, input: JSON.stringify({ documentId }) }));
  return started.executionArn!;
}

/** The approval requests the callback Lambda has received for a document, once there are `count`. */
async function approvalRequests(documentId: string, count = 1): Promise<ApprovalRequest[]> {
  return vi.waitFor(
    () => {
      const received = ((globalThis as { approvalRequests?: ApprovalRequest[] }).approvalRequests ?? []).filter((request) => request.documentId === documentId);
      expect(received).toHaveLength(count);
      return received;
    },
    { timeout: 5_000, interval: 10 },
  );
}

async function finished(executionArn: string) {
  await endpoint.idle();
  return client.send(new DescribeExecutionCommand({ executionArn }));
}

describe('local Step Functions callback tasks', () => {
  it('invokes the Lambda with a task token and continues with the SendTaskSuccess output', async () => {
    const executionArn = await startApproval('doc-approved');
    const [request] = await approvalRequests('doc-approved');

    const whileWaiting = await client.send(new DescribeExecutionCommand({ executionArn }));
    await client.send(new SendTaskSuccessCommand({ taskToken: request!.TaskToken, output: JSON.stringify({ approvedBy: 'ana' }) }));
    const described = await finished(executionArn);

    expect(request!.TaskToken).toEqual(expect.any(String));
    expect(request!.TaskToken).not.toBe('');
    expect(whileWaiting.status).toBe('RUNNING');
    expect(described.status).toBe('SUCCEEDED');
    expect(JSON.parse(described.output!)).toEqual({ documentId: 'doc-approved', approval: { approvedBy: 'ana' } });
  });

  it('answers TaskTimedOut for a token whose task is closed, as AWS documents', async () => {
    const executionArn = await startApproval('doc-answered-twice');
    const [request] = await approvalRequests('doc-answered-twice');
    await client.send(new SendTaskSuccessCommand({ taskToken: request!.TaskToken, output: '{}' }));
    await finished(executionArn);

    await expect(client.send(new SendTaskSuccessCommand({ taskToken: request!.TaskToken, output: '{}' }))).rejects.toMatchObject({ name: 'TaskTimedOut' });
    await expect(client.send(new SendTaskFailureCommand({ taskToken: request!.TaskToken, error: 'Approval.Rejected' }))).rejects.toMatchObject({ name: 'TaskTimedOut' });
  });

  it('raises the SendTaskFailure error, caught by name by the ASL Catch', async () => {
    const executionArn = await startApproval('doc-rejected');
    const [request] = await approvalRequests('doc-rejected');

    await client.send(new SendTaskFailureCommand({ taskToken: request!.TaskToken, error: 'Approval.Rejected', cause: 'wrong supplier' }));
    const described = await finished(executionArn);

    expect(described.status).toBe('SUCCEEDED');
    expect(JSON.parse(described.output!)).toEqual({ documentId: 'doc-rejected', rejection: { Error: 'Approval.Rejected', Cause: 'wrong supplier' } });
  });

  it('retries the task on a SendTaskFailure error its Retry names, with a fresh token', async () => {
    const executionArn = await startApproval('doc-retried');
    const [first] = await approvalRequests('doc-retried');

    await client.send(new SendTaskFailureCommand({ taskToken: first!.TaskToken, error: 'Approval.Unavailable', cause: 'approver away' }));
    const [, second] = await approvalRequests('doc-retried', 2);
    await client.send(new SendTaskSuccessCommand({ taskToken: second!.TaskToken, output: JSON.stringify({ approvedBy: 'ben' }) }));
    const described = await finished(executionArn);

    expect(second!.TaskToken).not.toBe(first!.TaskToken);
    expect(described.status).toBe('SUCCEEDED');
    expect(JSON.parse(described.output!).approval).toEqual({ approvedBy: 'ben' });
  });

  it('fails the execution with an error neither Retry nor Catch names', async () => {
    const executionArn = await startApproval('doc-broken');
    const [request] = await approvalRequests('doc-broken');

    await client.send(new SendTaskFailureCommand({ taskToken: request!.TaskToken, error: 'Approval.Broken', cause: 'form lost' }));
    const described = await finished(executionArn);

    expect(described).toMatchObject({ status: 'FAILED', error: 'Approval.Broken', cause: 'form lost' });
  });

  it('answers InvalidToken for a token it never issued, and accepts heartbeats only for a waiting task', async () => {
    const executionArn = await startApproval('doc-heartbeat');
    const [request] = await approvalRequests('doc-heartbeat');

    await expect(client.send(new SendTaskSuccessCommand({ taskToken: 'not-a-token', output: '{}' }))).rejects.toMatchObject({ name: 'InvalidToken' });
    await expect(client.send(new SendTaskFailureCommand({ taskToken: 'not-a-token' }))).rejects.toMatchObject({ name: 'InvalidToken' });
    await expect(client.send(new SendTaskHeartbeatCommand({ taskToken: 'not-a-token' }))).rejects.toMatchObject({ name: 'InvalidToken' });
    await expect(client.send(new SendTaskHeartbeatCommand({ taskToken: request!.TaskToken }))).resolves.toBeDefined();
    await expect(client.send(new SendTaskSuccessCommand({ taskToken: request!.TaskToken, output: 'not json' }))).rejects.toMatchObject({ name: 'InvalidOutput' });

    await client.send(new SendTaskSuccessCommand({ taskToken: request!.TaskToken, output: '{}' }));
    expect((await finished(executionArn)).status).toBe('SUCCEEDED');
  });

  it('closes the waiting task when its execution is stopped', async () => {
    const executionArn = await startApproval('doc-stopped');
    const [request] = await approvalRequests('doc-stopped');

    await client.send(new StopExecutionCommand({ executionArn }));
    const described = await finished(executionArn);

    expect(described.status).toBe('ABORTED');
    expect(described).not.toHaveProperty('error');
    await expect(client.send(new SendTaskSuccessCommand({ taskToken: request!.TaskToken, output: '{}' }))).rejects.toMatchObject({ name: 'TaskTimedOut' });
  });
});

describe('local Step Functions lambda:invoke', () => {
  it('invokes the function named by FunctionName and returns its result under Payload', async () => {
    const started = await client.send(new StartExecutionCommand({ stateMachineArn: endpoint.stateMachineArns.invoke, input: JSON.stringify({ value: 21 }) }));

    const described = await finished(started.executionArn!);

    expect(described.status).toBe('SUCCEEDED');
    expect(JSON.parse(described.output!)).toEqual({ value: 21, doubled: { value: 42, statusCode: 200 } });
  });
});
