import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failureOf } from '../support/admin-cli-process.ts';
import { workspaceKey } from '../support/extraction-client.ts';
import { startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { paperflowCliFor } from '../support/paperflow-cli-process.ts';
import { startWebhookReceiver, type ReceivedWebhook, type RunningWebhookReceiver } from '../support/webhook-receiver.ts';
import { publishDefinition, WorkflowRunClient } from '../support/workflow-runs.ts';

// Redrive (an extension, POST /workflow-runs/{runId}/redrive and `paperflow runs redrive`): a run that
// failed on a web_function step whose receiver was down runs again once the receiver is healed. The
// receiver counts the calls of each path, which says which steps ran again and which kept their output.

const variables = {
  PAPERFLOW_ALLOW_PRIVATE_URLS: 'true',
  PAPERFLOW_WEB_FUNCTION_RETRY_DELAY_MS: '10',
  PAPERFLOW_LOCAL_RETRY_INTERVAL_MS: '10',
  PAPERFLOW_EVENT_OUTBOX_DRAIN_INTERVAL_SECONDS: '1',
  PAPERFLOW_EVENT_OUTBOX_GRACE_SECONDS: '1',
};

const workspaceId = 'ws_redrive';
let stack: StackUnderTest;
let client: WorkflowRunClient;
let receiver: RunningWebhookReceiver;
let received: ReceivedWebhook[] = [];
/** Paths that answer 500 until healed; every other path answers 200 with how often it was called. */
const failingPaths = new Set<string>();

const callsOf = (path: string) => received.filter((request) => request.path === path);

beforeAll(async () => {
  Object.assign(process.env, variables);
  receiver = await startWebhookReceiver((request: ReceivedWebhook, response: ServerResponse) => {
    received.push(request);
    if (failingPaths.has(request.path)) response.writeHead(500, { 'Content-Type': 'application/json' }).end('{"error":"down"}');
    else response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ call: callsOf(request.path).length }));
  });
  stack = await startStackUnderTest();
  client = new WorkflowRunClient(stack, await workspaceKey(workspaceId));
  await client.subscribeToRunEvents();
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  for (const name of Object.keys(variables)) delete process.env[name];
});

/** fetch (succeeds) → notify (its receiver is down: the run fails) → after (never reached). */
async function failedRun(name: string): Promise<{ workflowId: string; run: any; fetchPath: string; notifyPath: string }> {
  const [fetchPath, notifyPath] = [`/${name}/fetch`, `/${name}/notify`];
  failingPaths.add(notifyPath);
  const workflowId = await publishDefinition(workspaceId, [
    { id: 'fetch', type: 'web_function', with: { url: '{{ body.endpoint & "/fetch" }}' } },
    { id: 'notify', type: 'web_function', needs: ['fetch'], with: { url: '{{ body.endpoint & "/notify" }}', retries: 0 } },
    { id: 'after', type: 'transform', needs: ['notify'], with: { fetched: '{{ steps.fetch.output.body.call }}', notified: '{{ steps.notify.output.body.call }}' } },
  ]);
  const run = await client.run(workflowId, { endpoint: `${receiver.url}/${name}` });
  return { workflowId, run, fetchPath, notifyPath };
}

describe('POST /workflow-runs/{runId}/redrive', () => {
  it('runs a run that failed on a receiver that was down again once it is healed: the failed and skipped steps run, the completed step is not called again, and the events show both outcomes', async () => {
    const { workflowId, run: failed, fetchPath, notifyPath } = await failedRun('healed');
    failingPaths.delete(notifyPath);

    const redriven = await client.json(`/workflow-runs/${failed.id}/redrive`, { method: 'POST' });
    const completed = await client.waitForRunTerminal(failed.id);
    const [failedEvent, completedEvent] = await client.eventsOfRun(failed.id, 2);

    expect(failed).toMatchObject({ status: 'FAILED', error: { code: 'WORKFLOW_STEP_FAILED' } });
    expect(failed.steps.map((step: any) => step.status)).toEqual(['COMPLETED', 'FAILED', 'SKIPPED']);
    expect(redriven.status).toBe(202);
    expect(redriven.body).toMatchObject({ id: failed.id, status: 'PROCESSING', redriveCount: 1, redrivenAt: expect.any(String) });
    expect(redriven.body).not.toHaveProperty('error');
    expect(redriven.body).not.toHaveProperty('completedAt');
    expect(completed).toMatchObject({ status: 'COMPLETED', redriveCount: 1, progress: { stepsCompleted: 3, stepsTotal: 3 } });
    expect(completed).not.toHaveProperty('error');
    // fetch kept its output (the first call's answer) and was not called again; notify ran twice in all.
    expect(callsOf(fetchPath)).toHaveLength(1);
    expect(callsOf(notifyPath)).toHaveLength(2);
    expect(completed.steps).toMatchObject([
      { id: 'fetch', status: 'COMPLETED', output: { body: { call: 1 } }, completedAt: failed.steps[0].completedAt },
      { id: 'notify', status: 'COMPLETED', output: { status: 200, body: { call: 2 } } },
      { id: 'after', status: 'COMPLETED', output: { fetched: 1, notified: 2 } },
    ]);
    expect(Date.parse(completed.redrivenAt)).toBeGreaterThanOrEqual(Date.parse(failed.completedAt));
    expect(failedEvent).toMatchObject({ eventType: 'workflow.run.failed', data: { runId: failed.id, workflowId, status: 'FAILED', error: { code: 'WORKFLOW_STEP_FAILED' } } });
    expect(failedEvent.data).not.toHaveProperty('redriveCount');
    expect(completedEvent).toMatchObject({ eventType: 'workflow.run.completed', data: { runId: failed.id, workflowId, status: 'COMPLETED', error: null, redriveCount: 1 } });
    expect(completedEvent.eventId).not.toBe(failedEvent.eventId);
  }, 60_000);

  it('fails again with a new event when the receiver is still down, and can be redriven once more', async () => {
    const { run: failed, fetchPath, notifyPath } = await failedRun('still-down');

    await client.json(`/workflow-runs/${failed.id}/redrive`, { method: 'POST' });
    const failedAgain = await client.waitForRunTerminal(failed.id);
    failingPaths.delete(notifyPath);
    const second = await client.json(`/workflow-runs/${failed.id}/redrive`, { method: 'POST' });
    const completed = await client.waitForRunTerminal(failed.id);
    const events = await client.eventsOfRun(failed.id, 3);

    expect(failedAgain).toMatchObject({ status: 'FAILED', redriveCount: 1, error: { code: 'WORKFLOW_STEP_FAILED' } });
    expect(failedAgain.steps.map((step: any) => step.status)).toEqual(['COMPLETED', 'FAILED', 'SKIPPED']);
    expect(second.body).toMatchObject({ status: 'PROCESSING', redriveCount: 2 });
    expect(completed).toMatchObject({ status: 'COMPLETED', redriveCount: 2 });
    expect(callsOf(fetchPath)).toHaveLength(1);
    expect(callsOf(notifyPath)).toHaveLength(3);
    expect(events.map((event) => event.eventType)).toEqual(['workflow.run.failed', 'workflow.run.failed', 'workflow.run.completed']);
    expect(new Set(events.map((event) => event.eventId)).size).toBe(3);
  }, 60_000);

  it('starts none of a for_each step\'s nested runs that completed, and redrives the one that failed', async () => {
    const childId = await publishDefinition(workspaceId, [{ id: 'call', type: 'web_function', with: { url: `{{ "${receiver.url}/items/" & item }}`, retries: 0 } }]);
    const parentId = await publishDefinition(workspaceId, [
      { id: 'each', type: 'for_each', with: { items: '{{ body.items }}', workflowId: childId } },
      { id: 'done', type: 'transform', needs: ['each'], with: { completed: '{{ steps.each.output.completed }}' } },
    ]);
    failingPaths.add('/items/b');

    const failed = await client.run(parentId, { items: ['a', 'b', 'c'] });
    failingPaths.delete('/items/b');
    const redriven = await client.json(`/workflow-runs/${failed.id}/redrive`, { method: 'POST' });
    const completed = await client.waitForRunTerminal(failed.id);
    const nested = completed.steps[0].nestedRuns.data;
    const failedNestedIds = failed.steps[0].nestedRuns.data.map((run: any) => run.id);

    expect(failed).toMatchObject({ status: 'FAILED', steps: [{ id: 'each', status: 'FAILED', output: { count: 3, completed: 2, failed: 1 } }, { id: 'done', status: 'SKIPPED' }] });
    expect(redriven.status).toBe(202);
    expect(completed).toMatchObject({ status: 'COMPLETED', steps: [{ id: 'each', status: 'COMPLETED', output: { count: 3, completed: 3, failed: 0 } }, { id: 'done', output: { completed: 3 } }] });
    // The same nested runs: a and c were not called again, b was redriven.
    expect(nested.map((run: any) => run.id)).toEqual(failedNestedIds);
    expect(nested.map((run: any) => [run.status, run.redriveCount])).toEqual([
      ['COMPLETED', undefined],
      ['COMPLETED', 1],
      ['COMPLETED', undefined],
    ]);
    expect(callsOf('/items/a')).toHaveLength(1);
    expect(callsOf('/items/b')).toHaveLength(2);
    expect(callsOf('/items/c')).toHaveLength(1);
  }, 90_000);

  it('answers 409 CONFLICT for a run that is not FAILED and for a nested run, 404 for another workspace\'s run, 403 without workflows:run', async () => {
    const completedId = await publishDefinition(workspaceId, [{ id: 'one', type: 'transform', with: { ok: true } }]);
    const completed = await client.run(completedId, {});
    const childId = await publishDefinition(workspaceId, [{ id: 'fail', type: 'web_function', with: { url: `${receiver.url}/nested-fails`, retries: 0 } }]);
    failingPaths.add('/nested-fails');
    const parent = await client.run(await publishDefinition(workspaceId, [{ id: 'each', type: 'for_each', with: { items: [1], workflowId: childId } }]), {});
    const nestedId = parent.steps[0].nestedRuns.data[0].id;
    const other = new WorkflowRunClient(stack, await workspaceKey('ws_redrive_other'));
    const readOnly = new WorkflowRunClient(stack, await workspaceKey(workspaceId, ['workflows:read']));

    const ofCompleted = await client.json(`/workflow-runs/${completed.id}/redrive`, { method: 'POST' });
    const ofNested = await client.json(`/workflow-runs/${nestedId}/redrive`, { method: 'POST' });
    const fromOtherWorkspace = await other.json(`/workflow-runs/${parent.id}/redrive`, { method: 'POST' });
    const unknown = await client.json('/workflow-runs/run_00000000000000000000000000/redrive', { method: 'POST' });
    const withoutScope = await readOnly.json(`/workflow-runs/${parent.id}/redrive`, { method: 'POST' });
    const parentAfter = await client.get(parent.id);

    expect(parent.status).toBe('FAILED');
    expect(ofCompleted).toMatchObject({ status: 409, body: { error: { code: 'CONFLICT', message: expect.stringContaining('only a FAILED run') } } });
    expect(ofNested).toMatchObject({ status: 409, body: { error: { code: 'CONFLICT', message: expect.stringContaining(`redrive its parent run ${parent.id}`) } } });
    expect(fromOtherWorkspace).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    expect(unknown).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    expect(withoutScope).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN' } } });
    expect(parentAfter.body).toMatchObject({ status: 'FAILED' });
    expect(parentAfter.body).not.toHaveProperty('redriveCount');
  }, 60_000);

  it('is marked as an extension in the OpenAPI document', async () => {
    const document: any = await (await stack.api('/openapi.json')).json();

    const operation = document.paths['/workflow-runs/{runId}/redrive'].post;
    expect(operation).toMatchObject({ operationId: 'redriveWorkflowRun', 'x-paperflow-extension': true, 'x-paperflow-scope': 'workflows:run' });
    expect(operation.description).toMatch(/^Extension beyond public API v1: Like a Step Functions redrive\./);
  });
});

describe('paperflow runs redrive', () => {
  const paperflow = paperflowCliFor(() => ({ apiUrl: stack.baseUrl, apiKey: client.apiKey }));

  it('redrives a failed run, waits, and prints it COMPLETED; a second redrive exits 1 with the 409', async () => {
    const { run: failed, fetchPath, notifyPath } = await failedRun('cli');
    failingPaths.delete(notifyPath);

    const { stdout } = await paperflow('runs', 'redrive', failed.id, '--wait');
    const again = await failureOf(paperflow('runs', 'redrive', failed.id));

    expect(stdout).toMatch(new RegExp(`^${failed.id} {2}COMPLETED .* {2}redriven 1×\\n`));
    expect(stdout).toMatch(/notify +web_function +COMPLETED/);
    expect(callsOf(fetchPath)).toHaveLength(1);
    expect(again).toMatchObject({ code: 1, stderr: expect.stringContaining('CONFLICT (HTTP 409)') });
  }, 60_000);
});
