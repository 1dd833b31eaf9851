import { readFile } from 'node:fs/promises';
import { StopExecutionCommand } from '@aws-sdk/client-sfn';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../src/infrastructure/dynamodb-client.ts';
import { sfnClient } from '../../src/infrastructure/sfn-client.ts';
import { webhookDeliveryConsumer } from '../../src/webhooks/triggers.ts';
import { runItemKeys } from '../../src/workflows/aws/dynamodb-run-store.ts';
import { runExecutions, runService, workflowStore } from '../../src/composition/workflows.ts';
import { publishWorkflowDefinition } from '../../src/composition/workflow-publishing.ts';
import { adminCliFor } from '../support/admin-cli-process.ts';
import { workspaceKey } from '../support/extraction-client.ts';
import { startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { recordsTable } from '../support/records-table.ts';
import { publishDefinition, WorkflowRunClient } from '../support/workflow-runs.ts';

// Workflow runs over HTTP against the embedded stack: the real state machine (aws-local-stepfunctions),
// its task Lambdas in-process, DynamoDB and S3 emulators. Waits run at 1/100 of real time.

const variables = {
  PAPERFLOW_LOCAL_WAIT_TIME_SCALE: '0.01',
  PAPERFLOW_LOCAL_RETRY_INTERVAL_MS: '10',
};

let stack: StackUnderTest;
let client: WorkflowRunClient;
const workspaceId = 'ws_runs';

beforeAll(async () => {
  Object.assign(process.env, variables);
  // Events are read through GET /events; nothing here is delivered.
  stack = await startStackUnderTest({ omittedTriggers: [webhookDeliveryConsumer.name] });
  client = new WorkflowRunClient(stack, await workspaceKey(workspaceId));
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  for (const name of Object.keys(variables)) delete process.env[name];
});

const admin = adminCliFor(() => stack.dataDir);

const stepStatuses = (run: any) => Object.fromEntries(run.steps.map((step: any) => [step.id, step.status]));

async function subscribe(as: WorkflowRunClient, eventTypes: string[]): Promise<void> {
  const { status, body } = await as.json('/event-subscriptions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'workflow runs', endpointUrl: 'https://hooks.example.com/paperflow', eventTypes }),
  });
  if (status !== 201) throw new Error(`subscription not created: ${status} ${JSON.stringify(body)}`);
}

/** The run's event through GET /events (the workspace must subscribe to its type). */
async function eventOfRun(as: WorkflowRunClient, runId: string): Promise<any> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { body } = await as.json('/events?size=100');
    const events = await Promise.all(body.data.map(async (listed: any) => (await as.json(`/events/${listed.eventId}`)).body));
    const event = events.find((candidate: any) => candidate.data?.runId === runId);
    if (event) return event;
    if (Date.now() > deadline) throw new Error(`No event for run ${runId}: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function waitForStepStatus(runId: string, stepId: string, status: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { body } = await client.get(runId);
    if (body.steps.find((step: any) => step.id === stepId)?.status === status) return;
    if (Date.now() > deadline) throw new Error(`Step ${stepId} of ${runId} never reached ${status}: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('running a workflow', () => {
  it('runs two parallel branches and their join, each output feeding the next', async () => {
    const workflowId = await publishDefinition(workspaceId, [
      { id: 'left', type: 'transform', with: { value: '{{ body.number * 2 }}' } },
      { id: 'right', type: 'transform', with: { value: '{{ body.number + 1 }}', label: 'right of {{ body.number }}' } },
      { id: 'join', type: 'transform', needs: ['left', 'right'], with: { sum: '{{ steps.left.output.value + steps.right.output.value }}' } },
    ]);

    const run = await client.run(workflowId, { number: 5 });

    expect(run.status).toBe('COMPLETED');
    expect(stepStatuses(run)).toEqual({ left: 'COMPLETED', right: 'COMPLETED', join: 'COMPLETED' });
    expect(run.steps[1].output).toEqual({ value: 6, label: 'right of 5' });
    expect(run.steps[2].output).toEqual({ sum: 16 });
    expect(run.progress).toEqual({ stepsCompleted: 3, stepsTotal: 3 });
    expect(run.error).toBeUndefined();
    expect(Date.parse(run.completedAt) - Date.parse(run.createdAt)).toBe(run.durationMs);
    expect(run.computedDurationMs).toBeLessThanOrEqual(run.durationMs);
  });

  it('shows each step\'s dependsOn (the DAG\'s edges) and its own start, end and duration', async () => {
    const workflowId = await publishDefinition(workspaceId, [
      { id: 'left', type: 'transform', with: { value: 1 } },
      { id: 'right', type: 'transform', with: { value: 2 } },
      { id: 'join', type: 'transform', needs: ['left', 'right'], with: { sum: '{{ steps.left.output.value + steps.right.output.value }}' } },
    ]);

    const run = await client.run(workflowId, {});

    expect(run.steps.map((step: any) => [step.id, step.dependsOn])).toEqual([['left', []], ['right', []], ['join', ['left', 'right']]]);
    for (const step of run.steps) {
      expect(step.durationMs).toBe(Date.parse(step.completedAt) - Date.parse(step.startedAt));
      expect(Date.parse(step.startedAt)).toBeGreaterThanOrEqual(Date.parse(run.createdAt));
    }
    const join = run.steps[2];
    for (const needed of run.steps.slice(0, 2)) expect(Date.parse(join.startedAt)).toBeGreaterThanOrEqual(Date.parse(needed.completedAt));
  });

  it('answers 202 with the run in PROCESSING, every step QUEUED and no completedAt, durationMs or error', async () => {
    const workflowId = await publishDefinition(workspaceId, [{ id: 'only', type: 'transform', with: { ok: true } }], { name: 'Shape' });

    const { status, body } = await client.start(workflowId, { any: ['json'] });

    expect(status).toBe(202);
    expect(body).toMatchObject({ status: 'PROCESSING', workflow: { id: workflowId, name: 'Shape' }, progress: { stepsCompleted: 0, stepsTotal: 1 } });
    expect(body.id).toMatch(/^run_[0-9A-Z]{26}$/);
    expect(body.steps).toEqual([{ id: 'only', name: 'only', type: 'transform', status: 'QUEUED', dependsOn: [] }]);
    for (const absent of ['completedAt', 'durationMs', 'error']) expect(body).not.toHaveProperty(absent);
    expect((await client.waitForRunTerminal(body.id)).status).toBe('COMPLETED');
  });

  it('skips a step whose if is false, and a step whose needs were all skipped, but runs one that also needs a completed step', async () => {
    const workflowId = await publishDefinition(workspaceId, [
      { id: 'always', type: 'transform', with: { ran: true } },
      { id: 'onlyVip', type: 'transform', if: 'body.vip = true', with: { ran: true } },
      { id: 'afterVip', type: 'transform', needs: ['onlyVip'], with: { ran: true } },
      { id: 'afterBoth', type: 'transform', needs: ['always', 'onlyVip'], with: { vip: '{{ steps.onlyVip.status }}' } },
    ]);

    const run = await client.run(workflowId, { vip: false });

    expect(run.status).toBe('COMPLETED');
    expect(stepStatuses(run)).toEqual({ always: 'COMPLETED', onlyVip: 'SKIPPED', afterVip: 'SKIPPED', afterBoth: 'COMPLETED' });
    expect(run.steps[3].output).toEqual({ vip: 'SKIPPED' });
    expect(run.steps[1].message).toMatch(/condition/);
    expect(run.progress).toEqual({ stepsCompleted: 4, stepsTotal: 4 });
  });

  it('waits in a delay step without counting the wait in computedDurationMs', async () => {
    const workflowId = await publishDefinition(workspaceId, [
      { id: 'before', type: 'transform', with: { at: 'start' } },
      // 100 s at the tests' 1/100 time scale: one second.
      { id: 'pause', type: 'delay', needs: ['before'], with: { seconds: '{{ body.seconds }}' } },
      { id: 'after', type: 'transform', needs: ['pause'], with: { at: 'end' } },
    ]);

    const run = await client.run(workflowId, { seconds: 100 });

    expect(run.status).toBe('COMPLETED');
    expect(stepStatuses(run)).toEqual({ before: 'COMPLETED', pause: 'COMPLETED', after: 'COMPLETED' });
    expect(run.durationMs).toBeGreaterThanOrEqual(1_000);
    expect(run.computedDurationMs).toBeLessThan(run.durationMs - 900);
  });
});

describe('the README example', () => {
  it('publishes and runs as the README shows', async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('### Running a workflow'));
    const yaml = /```yaml\n([\s\S]*?)```/.exec(section)![1]!;
    const readmeClient = new WorkflowRunClient(stack, await workspaceKey('ws_runs_readme'));

    const published = await publishWorkflowDefinition('ws_runs_readme', yaml, 'yaml');
    const run = await readmeClient.run('wf_greeting', { name: 'Ada' });

    expect(published).toEqual({ ok: true, workflowId: 'wf_greeting', version: 1 });
    expect(run).toMatchObject({ status: 'COMPLETED', progress: { stepsCompleted: 4, stepsTotal: 4 } });
    expect(stepStatuses(run)).toEqual({ greet: 'COMPLETED', count: 'COMPLETED', vip: 'SKIPPED', card: 'COMPLETED' });
    expect(run.steps[3].output).toEqual({ card: 'Hello Ada (3 letters)' });
  });

  it('fails, naming the step, the key and the expression, when the input lacks what an expression reads', async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('### Running a workflow'));
    const yaml = /```yaml\n([\s\S]*?)```/.exec(section)![1]!;
    const readmeClient = new WorkflowRunClient(stack, await workspaceKey('ws_runs_readme_typo'));
    await publishWorkflowDefinition('ws_runs_readme_typo', yaml, 'yaml');

    const run = await readmeClient.run('wf_greeting', { nmae: 'Ada' });

    expect(run.status).toBe('FAILED');
    expect(run.error).toEqual({
      code: 'WORKFLOW_INPUT_INVALID',
      message: 'Step "greet" (transform) failed: steps[0].with.text: "body.name" gives nothing on this run\'s data; write a default (`? :` or $exists) if it may be missing',
    });
    expect(stepStatuses(run)).toEqual({ greet: 'FAILED', count: 'FAILED', vip: 'SKIPPED', card: 'SKIPPED' });
    expect(run.steps[1].message).toContain('"$length(body.name)" gives nothing');
    expect(run.steps[3].message).toBe('Skipped: step "greet" failed, so the run ended before this step ran.');
    expect(run.steps.some((step: any) => step.output !== undefined)).toBe(false);
  });
});

describe('for_each', () => {
  it('starts one nested run per item, each readable by id with its own steps and item', async () => {
    const childId = await publishDefinition(workspaceId, [{ id: 'scale', type: 'transform', with: { value: '{{ item.n * 10 }}', position: '{{ index }}', parent: '{{ body.n }}' } }], { name: 'Child' });
    const parentId = await publishDefinition(workspaceId, [
      { id: 'each', type: 'for_each', with: { items: '{{ body.items }}', workflowId: childId, maxConcurrency: 2 } },
      { id: 'summary', type: 'transform', needs: ['each'], with: { completed: '{{ steps.each.output.completed }}' } },
    ]);

    const run = await client.run(parentId, { items: [{ n: 1 }, { n: 2 }, { n: 3 }] });

    expect(run.status).toBe('COMPLETED');
    const each = run.steps[0];
    expect(each.output).toMatchObject({ count: 3, completed: 3, failed: 0 });
    expect(each.output.runIds).toHaveLength(3);
    expect(each.nestedRuns.count).toBe(3);
    expect(each.nestedRuns.data.map((nested: any) => [nested.id, nested.status, nested.parentRunId])).toEqual(
      each.output.runIds.map((id: string) => [id, 'COMPLETED', run.id]),
    );
    expect(run.steps[1].output).toEqual({ completed: 3 });
    const nested = await Promise.all(each.output.runIds.map(async (id: string) => (await client.get(id)).body));
    expect(nested.map((child) => child.steps[0].output)).toEqual([
      { value: 10, position: 0, parent: 1 },
      { value: 20, position: 1, parent: 2 },
      { value: 30, position: 2, parent: 3 },
    ]);
    expect(nested[0].workflow).toEqual({ id: childId, name: 'Child' });
  });

  it('answers the start with the for_each step and its (still empty) nested runs, as GET shows it', async () => {
    const childId = await publishDefinition(workspaceId, [{ id: 'echo', type: 'transform', with: { value: '{{ item }}' } }]);
    const parentId = await publishDefinition(workspaceId, [{ id: 'each', type: 'for_each', with: { items: '{{ body }}', workflowId: childId } }]);

    const started = await client.start(parentId, [1, 2]);

    expect(started.status).toBe(202);
    expect(started.body.steps).toEqual([{ id: 'each', name: 'each', type: 'for_each', status: 'QUEUED', dependsOn: [], nestedRuns: { count: 0, data: [] } }]);
    const finished = await client.waitForRunTerminal(started.body.id);
    expect(finished.steps[0].nestedRuns.count).toBe(2);
  });

  it('fails the step, and the run, when a nested run fails; the others still complete', async () => {
    const childId = await publishDefinition(workspaceId, [
      { id: 'check', type: 'transform', with: { value: '{{ item.ok ? "fine" : $error("item " & $string(index) & " is not ok") }}' } },
    ]);
    const parentId = await publishDefinition(workspaceId, [{ id: 'each', type: 'for_each', with: { items: '{{ body }}', workflowId: childId } }]);

    const run = await client.run(parentId, [{ ok: true }, { ok: false }, { ok: true }]);

    expect(run.status).toBe('FAILED');
    expect(run.error.code).toBe('WORKFLOW_STEP_FAILED');
    expect(run.error.message).toContain('"each"');
    expect(run.steps[0].output).toMatchObject({ count: 3, completed: 2, failed: 1 });
    expect(run.steps[0].nestedRuns.data.map((nested: any) => nested.status)).toEqual(['COMPLETED', 'FAILED', 'COMPLETED']);
    const failedChild = (await client.get(run.steps[0].output.runIds[1])).body;
    expect(failedChild.error).toMatchObject({ code: 'WORKFLOW_INPUT_INVALID' });
    expect(failedChild.error.message).toContain('item 1 is not ok');
  });
});

describe('failures', () => {
  it('accepts a run without a body (202), then fails it with WORKFLOW_INPUT_INVALID naming the expression', async () => {
    const workflowId = await publishDefinition(workspaceId, [
      { id: 'total', type: 'transform', with: { amount: '{{ $exists(body.amount) ? body.amount * 2 : $error("body.amount is required") }}' } },
      { id: 'next', type: 'transform', needs: ['total'], with: { never: true } },
    ]);

    const started = await client.start(workflowId);
    const run = await client.waitForRunTerminal(started.body.id);

    expect(started.status).toBe(202);
    expect(run.status).toBe('FAILED');
    expect(run.error.code).toBe('WORKFLOW_INPUT_INVALID');
    expect(run.error.message).toContain('"total"');
    expect(run.error.message).toContain('body.amount is required');
    expect(stepStatuses(run)).toEqual({ total: 'FAILED', next: 'SKIPPED' });
    expect(run.steps[1].message).toBe('Skipped: step "total" failed, so the run ended before this step ran.');
    // A step skipped because the run ended is not progress.
    expect(run.progress).toEqual({ stepsCompleted: 0, stepsTotal: 2 });
  });

  it('ends FAILED, never stuck, when a task keeps throwing (the run\'s stored definition broken mid-run)', async () => {
    const workflowId = await publishDefinition(workspaceId, [
      { id: 'pause', type: 'delay', with: { seconds: 100 } },
      { id: 'after', type: 'transform', needs: ['pause'], with: { done: true } },
    ]);
    const { body: started } = await client.start(workflowId);
    await waitForStepStatus(started.id, 'pause', 'PROCESSING');

    // The run's stored definition becomes unreadable: every later PlanRun attempt throws.
    await dynamoDocumentClient().send(
      new UpdateCommand({
        TableName: stack.resources.recordsTableName,
        Key: runItemKeys.runKey(workspaceId, started.id),
        UpdateExpression: 'SET definitionJson = :broken',
        ExpressionAttributeValues: { ':broken': '{not json' },
      }),
    );
    const run = await client.waitForRunTerminal(started.id);

    expect(run.status).toBe('FAILED');
    expect(run.error.code).toBe('WORKFLOW_RUN_FAILED');
    expect(run.error.message).toContain('cannot be read');
    expect(stepStatuses(run)).toEqual({ pause: 'COMPLETED', after: 'SKIPPED' });
    expect(run.steps[1].message).toBe('Skipped: the run ended FAILED before this step ran.');
  });

  it('settles a run whose execution died as FAILED (the sweeper)', async () => {
    const workflowId = await publishDefinition(workspaceId, [{ id: 'pause', type: 'delay', with: { seconds: 3_000 } }]);
    const { body: started } = await client.start(workflowId);
    await waitForStepStatus(started.id, 'pause', 'PROCESSING');

    await sfnClient().send(new StopExecutionCommand({ executionArn: runExecutions().executionArnOf(started.id), error: 'Test', cause: 'killed' }));
    const report = await runService().sweep(60_000);
    const { body: run } = await client.get(started.id);

    expect(report.failedLost).toBeGreaterThanOrEqual(1);
    expect(run.status).toBe('FAILED');
    expect(run.error).toEqual({ code: 'WORKFLOW_RUN_FAILED', message: "The run's execution ended ABORTED before the run was recorded as ended." });
  });
});

describe('events and close', () => {
  it('records workflow.run.completed once with the run, its step outputs and error null', async () => {
    const eventsClient = new WorkflowRunClient(stack, await workspaceKey('ws_runs_events'));
    await subscribe(eventsClient, ['workflow.run.completed', 'workflow.run.failed']);
    const workflowId = await publishDefinition('ws_runs_events', [{ id: 'greet', type: 'transform', with: { text: 'Hello {{ body.name }}' } }], { name: 'Greeting' });

    const run = await eventsClient.run(workflowId, { name: 'Ada' });
    const event = await eventOfRun(eventsClient, run.id);

    expect(event.eventType).toBe('workflow.run.completed');
    expect(event.occurredAt).toBe(run.completedAt);
    expect(event.data).toMatchObject({
      runId: run.id,
      workflowId,
      status: 'COMPLETED',
      error: null,
      workflow: { id: workflowId, name: 'Greeting' },
      progress: { stepsCompleted: 1, stepsTotal: 1 },
      durationMs: run.durationMs,
      computedDurationMs: run.computedDurationMs,
      steps: [{ id: 'greet', status: 'COMPLETED', output: { text: 'Hello Ada' } }],
    });
    const { body: events } = await eventsClient.json('/events?size=100');
    expect(events.pageInfo.totalItems).toBe(1);
  });

  it('records and serves any JSON value in the event of a run, numbers DynamoDB cannot hold included', async () => {
    const eventsClient = new WorkflowRunClient(stack, await workspaceKey('ws_runs_odd_numbers'));
    await subscribe(eventsClient, ['workflow.run.completed', 'workflow.run.failed']);
    const workflowId = await publishDefinition('ws_runs_odd_numbers', [{ id: 'echo', type: 'transform', with: { received: '{{ body }}' } }]);
    const rawInput = '{"tiny":1e-200,"huge":1e300,"precise":0.1,"nested":{"constructor":{"":[]}}}';

    const started = await eventsClient.json(`/workflows/${workflowId}/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: rawInput });
    const run = await eventsClient.waitForRunTerminal(started.body.id);
    const event = await eventOfRun(eventsClient, run.id);

    expect(run.status).toBe('COMPLETED');
    expect(event.eventType).toBe('workflow.run.completed');
    expect(event.data.steps[0].output).toEqual({ received: JSON.parse(rawInput) });
  });

  it('closes a run with paperflow-admin runs close: CLOSED without error, and workflow.run.failed without error', async () => {
    const closeClient = new WorkflowRunClient(stack, await workspaceKey('ws_runs_close'));
    await subscribe(closeClient, ['workflow.run.failed']);
    const workflowId = await publishDefinition('ws_runs_close', [
      { id: 'pause', type: 'delay', with: { seconds: 3_000 } },
      { id: 'after', type: 'transform', needs: ['pause'], with: { never: true } },
    ]);
    const { body: started } = await closeClient.start(workflowId);
    const deadline = Date.now() + 10_000;
    while ((await closeClient.get(started.id)).body.steps[0].status !== 'PROCESSING' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));

    const { stdout } = await admin('runs', 'close', started.id, '--workspace', 'ws_runs_close');
    const { body: run } = await closeClient.get(started.id);
    const event = await eventOfRun(closeClient, started.id);

    expect(JSON.parse(stdout)).toMatchObject({ id: started.id, status: 'CLOSED' });
    expect(run.status).toBe('CLOSED');
    expect(run).not.toHaveProperty('error');
    expect(run.completedAt).toBeDefined();
    expect(run.steps[1]).toMatchObject({ id: 'after', status: 'SKIPPED', message: 'Skipped: the run was closed before this step ran.' });
    expect(event.eventType).toBe('workflow.run.failed');
    expect(event.data).toMatchObject({ runId: started.id, workflowId, status: 'CLOSED' });
    expect(event.data).not.toHaveProperty('error');
    const again = await admin('runs', 'close', started.id, '--workspace', 'ws_runs_close').catch((error: { stderr: string }) => error);
    expect((again as { stderr: string }).stderr).toContain('already ended CLOSED');
  });
});

describe('closing a parent', () => {
  it('closes its nested runs in flight too', async () => {
    const childId = await publishDefinition(workspaceId, [{ id: 'pause', type: 'delay', with: { seconds: 3_000 } }]);
    const parentId = await publishDefinition(workspaceId, [{ id: 'each', type: 'for_each', with: { items: [1, 2], workflowId: childId } }]);
    const { body: started } = await client.start(parentId);
    const deadline = Date.now() + 10_000;
    let nestedIds: string[] = [];
    while (Date.now() < deadline) {
      const { body } = await client.get(started.id);
      nestedIds = body.steps[0].nestedRuns?.data.map((nested: any) => nested.id) ?? [];
      if (nestedIds.length === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }

    await admin('runs', 'close', started.id, '--workspace', workspaceId);
    const nested = await Promise.all(nestedIds.map(async (id) => (await client.get(id)).body));

    expect(nestedIds).toHaveLength(2);
    expect((await client.get(started.id)).body.status).toBe('CLOSED');
    expect(nested.map((run) => run.status)).toEqual(['CLOSED', 'CLOSED']);
  });
});

describe('starting', () => {
  it('answers 404 for an unknown or malformed workflow id and 409 for a disabled workflow', async () => {
    const workflowId = await publishDefinition(workspaceId, [{ id: 'only', type: 'transform', with: {} }]);
    await workflowStore().setStatus(workspaceId, workflowId, 'disabled');

    const unknown = await client.start('wf_does_not_exist', {});
    const malformed = await client.start('not-a-workflow', {});
    const disabled = await client.start(workflowId, {});

    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'NOT_FOUND']);
    expect([malformed.status, malformed.body.error.code]).toEqual([404, 'NOT_FOUND']);
    expect([disabled.status, disabled.body.error.code]).toEqual([409, 'CONFLICT']);
  });

  it('stores no file part of a multipart run that is refused with 404 or 409', async () => {
    const filesWorkspace = 'ws_runs_refused_files';
    const filesClient = new WorkflowRunClient(stack, await workspaceKey(filesWorkspace));
    const workflowId = await publishDefinition(filesWorkspace, [{ id: 'only', type: 'transform', with: {} }]);
    await workflowStore().setStatus(filesWorkspace, workflowId, 'disabled');
    const form = () => {
      const data = new FormData();
      data.append('note', 'hello');
      data.append('invoice', new Blob(['%PDF-1.7 not much of a pdf'], { type: 'application/pdf' }), 'invoice.pdf');
      return data;
    };

    const unknown = await filesClient.json('/workflows/wf_does_not_exist/runs', { method: 'POST', body: form() });
    const disabled = await filesClient.json(`/workflows/${workflowId}/runs`, { method: 'POST', body: form() });
    const { client: table, tableName } = recordsTable();
    const { Count: storedFiles } = await table.send(
      new QueryCommand({ TableName: tableName, IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': `WS#${filesWorkspace}#FILES` }, Select: 'COUNT' }),
    );

    expect([unknown.status, disabled.status]).toEqual([404, 409]);
    expect(storedFiles).toBe(0);
  });

  it('answers 400 for unreadable JSON and 415 for another content type', async () => {
    const workflowId = await publishDefinition(workspaceId, [{ id: 'only', type: 'transform', with: {} }]);

    const unreadable = await client.json(`/workflows/${workflowId}/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":' });
    const text = await client.json(`/workflows/${workflowId}/runs`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });

    expect([unreadable.status, unreadable.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
    expect([text.status, text.body.error.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
  });

  it('keeps workspaces apart: another workspace can neither start the workflow nor read its runs', async () => {
    const other = new WorkflowRunClient(stack, await workspaceKey('ws_runs_other'));
    const workflowId = await publishDefinition(workspaceId, [{ id: 'only', type: 'transform', with: {} }]);
    const run = await client.run(workflowId);

    const started = await other.start(workflowId, {});
    const read = await other.get(run.id);
    const listed = await other.list(`workflowId=${workflowId}`);

    expect(started.status).toBe(404);
    expect(read.status).toBe(404);
    expect(listed.body.pageInfo.totalItems).toBe(0);
  });

  it('answers 404 for an unknown or malformed run id', async () => {
    expect((await client.get('run_01ARZ3NDEKTSV4RRFFQ69G5FAV')).status).toBe(404);
    expect((await client.get('nope')).status).toBe(404);
  });
});

describe('listing', () => {
  it('filters by workflow and status, sorts and pages with exact totals', async () => {
    const lister = new WorkflowRunClient(stack, await workspaceKey('ws_runs_list'));
    const passing = await publishDefinition('ws_runs_list', [{ id: 'ok', type: 'transform', with: {} }]);
    const failing = await publishDefinition('ws_runs_list', [{ id: 'bad', type: 'transform', with: { x: '{{ $error("no") }}' } }]);
    const passed = [];
    for (let index = 0; index < 3; index += 1) passed.push(await lister.run(passing, { index }));
    const failed = [await lister.run(failing), await lister.run(failing)];

    const all = await lister.list('size=2');
    const secondPage = await lister.list('size=2&page=1&sort=asc');
    const byWorkflow = await lister.list(`workflowId=${passing}`);
    const failedOnly = await lister.list('status=FAILED');
    const failedOfPassing = await lister.list(`status=FAILED&workflowId=${passing}`);
    const byCompletion = await lister.list('sortBy=completedAt&sort=asc&size=100');
    const fromThirdPassed = await lister.list(`from=${encodeURIComponent(passed[2].createdAt)}&sort=asc`);
    const beyond = await lister.list('page=9');

    expect(all.body.pageInfo).toEqual({ page: 0, size: 2, totalItems: 5, totalPages: 3 });
    expect(all.body.data.map((run: any) => run.id)).toEqual([failed[1].id, failed[0].id]);
    expect(all.body.data[0]).not.toHaveProperty('steps');
    expect(secondPage.body.data.map((run: any) => run.id)).toEqual([passed[2].id, failed[0].id]);
    expect(byWorkflow.body.pageInfo.totalItems).toBe(3);
    expect(byWorkflow.body.data.every((run: any) => run.workflow.id === passing)).toBe(true);
    expect(failedOnly.body.data.map((run: any) => run.id)).toEqual([failed[1].id, failed[0].id]);
    expect(failedOnly.body.pageInfo.totalItems).toBe(2);
    expect(failedOfPassing.body.pageInfo.totalItems).toBe(0);
    expect(byCompletion.body.data.map((run: any) => run.id)).toEqual([...passed, ...failed].map((run) => run.id));
    expect(fromThirdPassed.body.data.map((run: any) => run.id)).toEqual([passed[2].id, failed[0].id, failed[1].id]);
    expect(beyond.body).toEqual({ data: [], pageInfo: { page: 9, size: 50, totalItems: 5, totalPages: 1 } });
  });

  it('answers 400 for a bad filter or page', async () => {
    for (const query of ['status=DONE', 'size=0', 'size=101', 'page=-1', 'sortBy=name', 'from=yesterday', 'unknown=1', 'from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z']) {
      const { status, body } = await client.list(query);
      expect([query, status, body.error.code]).toEqual([query, 400, 'INVALID_REQUEST']);
    }
  });
});
