import { newIdentifier } from '../../src/infrastructure/identifiers.ts';
import { workflowStore } from '../../src/composition/workflows.ts';
import { publishWorkflowDefinition } from '../../src/composition/workflow-publishing.ts';
import { jsonOf, type StackUnderTest } from './local-stack-harness.ts';

// Builders for the workflow run tests (this file and the step types' tests): publish a definition in a
// workspace of the running local stack, start runs over HTTP, wait (bounded) for a terminal state.

const terminalStatuses = new Set(['COMPLETED', 'FAILED', 'CLOSED']);

export interface DefinitionStep {
  id: string;
  type: 'transform' | 'delay' | 'for_each' | 'web_function' | 'document_insights';
  name?: string;
  needs?: string[];
  if?: string;
  with?: unknown;
}

/** Publishes `steps` as a new workflow (a fresh id unless given) and returns its id. */
export async function publishDefinition(workspaceId: string, steps: DefinitionStep[], options: { id?: string; name?: string } = {}): Promise<string> {
  const id = options.id ?? `wf_${newIdentifier('wf').slice(3).toLowerCase()}`;
  const definition = { id, name: options.name ?? `Test ${id}`, steps };
  const published = await publishWorkflowDefinition(workspaceId, JSON.stringify(definition), 'json');
  if (!published.ok) throw new Error(`The test definition does not publish: ${JSON.stringify(published.problems)}`);
  return published.workflowId;
}

export class WorkflowRunClient {
  constructor(
    private readonly stack: StackUnderTest,
    readonly apiKey: string,
  ) {}

  async json(path: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
    const response = await this.stack.api(path, { ...init, apiKey: this.apiKey });
    return { status: response.status, body: await jsonOf(response) };
  }

  /** POST /workflows/{id}/runs with a JSON body, or none when `body` is undefined. */
  start(workflowId: string, body?: unknown) {
    return this.json(`/workflows/${workflowId}/runs`, {
      method: 'POST',
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
  }

  get(runId: string) {
    return this.json(`/workflow-runs/${runId}`);
  }

  list(query = '') {
    return this.json(`/workflow-runs${query ? `?${query}` : ''}`);
  }

  /** Starts a run, expects 202, and returns the run once terminal. */
  async run(workflowId: string, body?: unknown, timeoutMs?: number): Promise<any> {
    const started = await this.start(workflowId, body);
    if (started.status !== 202) throw new Error(`Starting ${workflowId} answered ${started.status}: ${JSON.stringify(started.body)}`);
    return this.waitForRunTerminal(started.body.id, timeoutMs);
  }

  /**
   * Subscribes the workspace to the run events, so that GET /events lists them (it lists only the
   * types some subscription names). The endpoint is never reached (a documentation address).
   */
  async subscribeToRunEvents(): Promise<void> {
    const subscription = await this.json('/event-subscriptions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'runs', endpointUrl: 'https://hooks.example.com/paperflow', eventTypes: ['workflow.run.completed', 'workflow.run.failed'] }),
    });
    if (subscription.status !== 201) throw new Error(`Subscribing to run events answered ${subscription.status}: ${JSON.stringify(subscription.body)}`);
  }

  /** The run's events as GET /events/{id} answers them, oldest first, once there are `count` (bounded wait). */
  async eventsOfRun(runId: string, count = 1, timeoutMs = 15_000): Promise<any[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      // Newest first, so that a workspace's older events cannot crowd the run's out of the page.
      const { body } = await this.json('/events?size=100');
      const events = await Promise.all(body.data.map(async (listed: any) => (await this.json(`/events/${listed.eventId}`)).body));
      const ofRun = events.filter((event: any) => event.data?.runId === runId).sort((left: any, right: any) => left.occurredAt.localeCompare(right.occurredAt));
      if (ofRun.length >= count) return ofRun;
      if (Date.now() > deadline) throw new Error(`Run ${runId} has ${ofRun.length} events after ${timeoutMs} ms, not ${count}.`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Polls GET /workflow-runs/{id} until COMPLETED, FAILED or CLOSED; fails the test after `timeoutMs`. */
  async waitForRunTerminal(runId: string, timeoutMs = 30_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { status, body } = await this.get(runId);
      if (status !== 200) throw new Error(`GET /workflow-runs/${runId} answered ${status}: ${JSON.stringify(body)}`);
      if (terminalStatuses.has(body.status)) return body;
      if (Date.now() > deadline) throw new Error(`Run ${runId} is still ${body.status} after ${timeoutMs} ms: ${JSON.stringify(body)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
