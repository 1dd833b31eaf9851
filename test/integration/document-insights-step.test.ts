import { fileURLToPath } from 'node:url';
import { Readable } from 'node:stream';
import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { SetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLocalStepFunctions, type RunningLocalStepFunctions } from '../../src/local/local-step-functions.ts';
import type { QueueConsumerTrigger } from '../../src/platform/trigger-table.ts';
import { webhookDeliveryConsumer } from '../../src/webhooks/triggers.ts';
import { readRunInput, type FileNode } from '../../src/workflows/run-input.ts';
import { formUploads } from '../../src/composition/files.ts';
import { startDocumentInsightsStep } from '../../src/workflows/steps/document-insights.ts';
import { StepFunctionsTaskCallbacks } from '../../src/workflows/aws/step-functions-task-callbacks.ts';
import { documentInsightsWaits } from '../../src/composition/workflow-callbacks.ts';
import { documentInsightsDependencies } from '../../src/composition/workflows.ts';
import { invoicePdf } from '../support/extraction-documents.ts';
import { jsonOf, startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { answerTaskTokensAt, throttleNextAnswers } from '../support/step-resuming-queue-consumer.ts';

// document_insights on the embedded stack, with a real task token: a tiny state machine
// (test/fixtures/step-functions/callback.asl.json) waits on `.waitForTaskToken` like the run state
// machine will, the step starts a real extraction of a file sent as a multipart part, and the
// extraction's terminal event resumes the waiting execution through the events outbox and the
// delivery queue's consumer. Only the endpoint that answers the token is the test's own.

const fixtures = fileURLToPath(new URL('../fixtures/step-functions/', import.meta.url));

const resumingConsumer: QueueConsumerTrigger = {
  ...webhookDeliveryConsumer,
  name: 'integrationTestResumeSteps',
  handler: 'test/support/step-resuming-queue-consumer.ts',
  description: 'The delivery consumer with task tokens answered on the test endpoint',
};

let stack: StackUnderTest;
let waitingMachine: RunningLocalStepFunctions;
let client: SFNClient;

beforeAll(async () => {
  stack = await startStackUnderTest({ omittedTriggers: [webhookDeliveryConsumer.name], additionalTriggers: [resumingConsumer] });
  // A failed hand-off message comes back after the visibility timeout, shortened to keep the test short.
  await new SQSClient({ useQueueUrlAsEndpoint: false }).send(new SetQueueAttributesCommand({ QueueUrl: stack.resources.webhookDeliveryQueueUrl, Attributes: { VisibilityTimeout: '2' } }));
  waitingMachine = await startLocalStepFunctions({
    projectRoot: fixtures,
    stateMachines: [{ name: 'callback', definitionFile: 'callback.asl.json', tasks: [{ placeholder: 'RequestApprovalFunctionArn', handler: 'request-approval.mjs' }] }],
  });
  answerTaskTokensAt(waitingMachine.endpoint);
  client = new SFNClient({ endpoint: waitingMachine.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
});

afterAll(async () => {
  await waitingMachine?.close();
  await stack?.stop();
});

/** Starts an execution that waits on a task token, and returns the token it handed out. */
async function waitingExecution(name: string): Promise<{ executionArn: string; taskToken: string }> {
  const { executionArn } = await client.send(new StartExecutionCommand({ stateMachineArn: waitingMachine.stateMachineArns.callback, name, input: JSON.stringify({ documentId: name }) }));
  const request = await vi.waitFor(
    () => {
      const found = ((globalThis as { approvalRequests?: { TaskToken: string; documentId: string }[] }).approvalRequests ?? []).find((each) => each.documentId === name);
      expect(found).toBeDefined();
      return found!;
    },
    { timeout: 5_000, interval: 10 },
  );
  return { executionArn: executionArn!, taskToken: request.TaskToken };
}

async function finished(executionArn: string) {
  return vi.waitFor(
    async () => {
      const execution = await client.send(new DescribeExecutionCommand({ executionArn }));
      expect(execution.status).not.toBe('RUNNING');
      return execution;
    },
    { timeout: 60_000, interval: 100 },
  );
}

async function uploadedAsPart(content: Buffer, fileName: string): Promise<FileNode[]> {
  const form = new FormData();
  form.append('invoice', new Blob([content]), fileName);
  const request = new Request('http://paperflow.test/runs', { method: 'POST', body: form });
  const body = (await readRunInput('ws_default', { contentType: request.headers.get('content-type')!, stream: Readable.fromWeb(request.body! as never) }, { formUploads: formUploads() })) as { invoice: FileNode[] };
  return body.invoice;
}

/** The step's start as the run engine makes it, its immediate re-check answering on the test endpoint. */
function startStep(runId: string, evaluatedWith: unknown, taskToken: string) {
  const callbacks = new StepFunctionsTaskCallbacks(client);
  return startDocumentInsightsStep({ workspaceId: 'ws_default', runId, stepId: 'read_invoice', evaluatedWith, taskToken }, { ...documentInsightsDependencies(), callbacks });
}

describe('document_insights on the embedded stack', () => {
  it('resumes the waiting execution with {extractionId, status, fields} once the extraction completes', async () => {
    const file = await uploadedAsPart(await invoicePdf({ invoiceNumber: 'RUN-0001' }), 'invoice.pdf');
    const { executionArn, taskToken } = await waitingExecution('completes');

    const { extractionId } = await startStep('run_completes', { file, labels: { source: 'workflow' } }, taskToken);
    const execution = await finished(executionArn);

    expect(execution.status).toBe('SUCCEEDED');
    const output = JSON.parse(execution.output!).approval as { extractionId: string; status: string; fields: { name: string; value: unknown }[] };
    expect(output).toMatchObject({ extractionId, status: 'COMPLETED' });
    expect(output.fields.find((field) => field.name === 'invoice_number')).toMatchObject({ value: 'RUN-0001' });
    const read = await stack.api(`/document-insights/extractions/${extractionId}`);
    expect(read.status).toBe(200);
    const extraction = await jsonOf(read);
    // Nothing polls the extraction: the token is answered by the start's one look or by the terminal
    // event's listener, so the execution above ended by a push (how soon is for benchmarks to measure).
    expect(extraction).toMatchObject({ id: extractionId, status: 'COMPLETED', labels: { source: 'workflow', workflowRunId: 'run_completes' }, document: { fileId: file[0]!.fileId } });
    const listed = await jsonOf(await stack.api('/document-insights/extractions?size=100'));
    expect(listed.data.map((each: { id: string }) => each.id)).toContain(extractionId);
    expect(await documentInsightsWaits().get('ws_default', extractionId)).toBeUndefined();
  });

  it('fails the waiting execution with StepFailedError, the extraction in the cause, when the extraction fails', async () => {
    const file = await uploadedAsPart(await invoicePdf({ invoiceNumber: 'RUN-0002' }), 'invoice.pdf');
    const { executionArn, taskToken } = await waitingExecution('fails');

    // No configured document type of that name: the extraction ends FAILED DOCUMENT_NOT_ROUTED.
    const { extractionId } = await startStep('run_fails', { file: file[0], labels: { docType: 'no_such_type' } }, taskToken);
    const execution = await finished(executionArn);

    expect(execution).toMatchObject({ status: 'FAILED', error: 'StepFailedError' });
    expect(JSON.parse(execution.cause!)).toEqual({
      message: expect.stringMatching(new RegExp(`^Extraction ${extractionId} ended FAILED \\(DOCUMENT_NOT_ROUTED: `)),
      output: { extractionId, status: 'FAILED' },
    });
  });

  it('resumes the execution when the hand-off comes back after the first answer failed', async () => {
    const file = await uploadedAsPart(await invoicePdf({ invoiceNumber: 'RUN-0003' }), 'invoice.pdf');
    const { executionArn, taskToken } = await waitingExecution('recovers');
    throttleNextAnswers(1);

    const { extractionId } = await startStep('run_recovers', { file }, taskToken);
    const execution = await finished(executionArn);

    expect(execution.status).toBe('SUCCEEDED');
    expect(JSON.parse(execution.output!).approval).toMatchObject({ extractionId, status: 'COMPLETED' });
    // The answer came from the message's second receive, one visibility timeout (2 s) after the first.
    const extraction = await jsonOf(await stack.api(`/document-insights/extractions/${extractionId}`));
    expect(execution.stopDate!.getTime() - Date.parse(extraction.completedAt)).toBeGreaterThanOrEqual(1_500);
    expect(await documentInsightsWaits().get('ws_default', extractionId)).toBeUndefined();
  });

  it('fails at once for a file of another workspace, leaving the token unanswered and nothing waiting', async () => {
    const form = new FormData();
    form.append('invoice', new Blob([await invoicePdf()]), 'invoice.pdf');
    const request = new Request('http://paperflow.test/runs', { method: 'POST', body: form });
    const foreign = (await readRunInput('ws_foreign', { contentType: request.headers.get('content-type')!, stream: Readable.fromWeb(request.body! as never) }, { formUploads: formUploads() })) as { invoice: FileNode[] };

    await expect(startStep('run_foreign', { file: foreign.invoice }, 'token-never-used')).rejects.toMatchObject({
      name: 'StepFailedError',
      message: 'document_insights could not start an extraction: document.fileId: No such file in this workspace.',
    });
  });
});
