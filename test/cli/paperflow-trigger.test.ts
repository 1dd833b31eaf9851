import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failureOf } from '../support/admin-cli-process.ts';
import { workspaceKey } from '../support/extraction-client.ts';
import { jsonOf, startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { paperflowCliFor, startPaperflowProcess, type CliConnection, type RunningCliProcess } from '../support/paperflow-cli-process.ts';
import { startWebhookReceiver, type ReceivedWebhook, type RunningWebhookReceiver } from '../support/webhook-receiver.ts';
import { publishDefinition } from '../support/workflow-runs.ts';

// `paperflow trigger <eventType>` as an API user runs it, with `paperflow listen` running in another
// process: each trigger causes a real event of its type in the workspace (an extraction of a bundled
// sample, or a run of a published workflow), and listen forwards it to a local receiver.

const workspaceId = 'ws_cli_trigger';
let stack: StackUnderTest;
let connection: CliConnection;
let receiver: RunningWebhookReceiver;
const received: ReceivedWebhook[] = [];
let listen: RunningCliProcess;

beforeAll(async () => {
  stack = await startStackUnderTest();
  connection = { apiUrl: stack.baseUrl, apiKey: await workspaceKey(workspaceId) };
  receiver = await startWebhookReceiver((request: ReceivedWebhook, response: ServerResponse) => {
    received.push(request);
    response.writeHead(204).end();
  });
  listen = startPaperflowProcess(connection, ['listen', '--forward-to', `${receiver.url}/hooks`, '--interval', '0.2']);
  await listen.waitForLine(/^Ready/, 60_000);
}, 120_000);

afterAll(async () => {
  await listen?.stop('SIGINT');
  await receiver?.close();
  await stack?.stop();
});

const paperflow = paperflowCliFor(() => connection);

/** The event listen forwarded for the extraction or run `resourceId` (bounded wait). */
async function forwardedEventOf(resourceId: string, timeoutMs = 30_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const request = received.find((candidate) => {
      const data = JSON.parse(candidate.body).data;
      return data.extractionId === resourceId || data.runId === resourceId;
    });
    if (request) return JSON.parse(request.body);
    if (Date.now() > deadline) throw new Error(`listen forwarded no event of ${resourceId} in ${timeoutMs} ms.`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('paperflow trigger, seen by paperflow listen', () => {
  it.each([
    ['document-insights.extraction.completed', 'COMPLETED', undefined],
    ['extraction.failed', 'FAILED', 'DOCUMENT_NOT_ROUTED'],
    ['document-insights.extraction.rejected', 'REJECTED', 'DOCUMENT_REJECTED'],
  ])('%s: an extraction of a bundled sample ends %s, and listen forwards its event', async (named, status, errorCode) => {
    const { stdout } = await paperflow('trigger', named, '--json');
    const extraction = JSON.parse(stdout);
    const event = await forwardedEventOf(extraction.id);
    const eventType = named.startsWith('document-insights.') ? named : `document-insights.${named}`;

    expect(extraction).toMatchObject({ status, labels: { paperflowTrigger: eventType } });
    if (errorCode) expect(extraction.error.code).toBe(errorCode);
    expect(event).toMatchObject({ eventType, data: { extractionId: extraction.id, status } });
    await listen.waitForLine(new RegExp(`${eventType.replaceAll('.', '\\.')} +${event.eventId} +-> 204`));
  }, 90_000);

  it('completes the bundled invoice with its fields, again on a second trigger (a new document each time)', async () => {
    const first = await paperflow('trigger', 'extraction.completed');
    const second = await paperflow('trigger', 'extraction.completed', '--json');

    const extraction = JSON.parse(second.stdout);
    const values = Object.fromEntries(extraction.output.fields.map((field: { name: string; value: unknown }) => [field.name, field.value]));
    expect(first.stdout).toMatch(/^document-insights\.extraction\.completed: extraction ext_\w+ ended COMPLETED\.\n$/);
    expect(values).toMatchObject({ invoice_number: 'PF-SAMPLE-0001', total_amount: 18 });
  }, 90_000);

  it('workflow.run.completed and workflow.run.failed: a run of the workflow named with --workflow, and listen forwards its event', async () => {
    const completing = await publishDefinition(workspaceId, [{ id: 'greet', type: 'transform', with: { greeting: '{{ "Hello, " & body.name }}' } }]);
    const failing = await publishDefinition(workspaceId, [{ id: 'refuse', type: 'transform', with: { never: '{{ $error("refused on purpose") }}' } }]);

    const completed = JSON.parse((await paperflow('trigger', 'workflow.run.completed', '--workflow', completing, '--data', '{"name":"Ada"}', '--json')).stdout);
    const failed = JSON.parse((await paperflow('trigger', 'workflow.run.failed', '--workflow', failing, '--json')).stdout);
    const completedEvent = await forwardedEventOf(completed.id);
    const failedEvent = await forwardedEventOf(failed.id);

    expect(completed).toMatchObject({ status: 'COMPLETED', workflow: { id: completing }, steps: [{ output: { greeting: 'Hello, Ada' } }] });
    expect(completedEvent).toMatchObject({ eventType: 'workflow.run.completed', data: { runId: completed.id, workflowId: completing } });
    expect(failed).toMatchObject({ status: 'FAILED', workflow: { id: failing } });
    expect(failedEvent).toMatchObject({ eventType: 'workflow.run.failed', data: { runId: failed.id, workflowId: failing, error: { code: 'WORKFLOW_INPUT_INVALID' } } });
    await listen.waitForLine(new RegExp(`workflow\\.run\\.failed +${failedEvent.eventId} +-> 204`));
  }, 90_000);

  it('exits 1, saying which event it caused instead, when the run ends otherwise than the type asks', async () => {
    const completing = await publishDefinition(workspaceId, [{ id: 'fine', type: 'transform', with: { ok: true } }]);

    const refused = await failureOf(paperflow('trigger', 'workflow.run.failed', '--workflow', completing));

    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/^workflow\.run\.completed: run run_\w+ ended COMPLETED\.\n$/);
    expect(refused.stderr).toContain('which records workflow.run.completed, not workflow.run.failed');
  }, 60_000);
});

describe('paperflow trigger usage', () => {
  it.each([
    ['an unknown event type, listing the types', ['trigger', 'extraction.done'], 'Unknown event type extraction.done; the types are document-insights.extraction.completed, document-insights.extraction.failed, document-insights.extraction.rejected, workflow.run.completed, workflow.run.failed.'],
    ['a run event without --workflow', ['trigger', 'workflow.run.completed'], 'workflow.run.completed needs --workflow <workflowId>'],
    ['--workflow with an extraction event', ['trigger', 'extraction.completed', '--workflow', 'wf_any'], '--workflow and --data are for workflow.run.* events'],
  ])('exits 2 on %s', async (_case, args, message) => {
    const refused = await failureOf(paperflow(...args));

    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(message);
  });

  it('answers 404 of an unknown workflow with exit 1, and causes nothing', async () => {
    const runsBefore = (await jsonOf(await stack.api('/workflow-runs', { apiKey: connection.apiKey }))).pageInfo.totalItems;

    const refused = await failureOf(paperflow('trigger', 'workflow.run.completed', '--workflow', 'wf_not-published'));

    expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining('NOT_FOUND (HTTP 404)') });
    expect((await jsonOf(await stack.api('/workflow-runs', { apiKey: connection.apiKey }))).pageInfo.totalItems).toBe(runsBefore);
  });
});
