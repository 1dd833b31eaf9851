import { beforeEach, describe, expect, it } from 'vitest';
import type { EventEnvelope } from '../../../src/events/event-envelope.ts';
import { RunEngine } from '../../../src/workflows/run-engine.ts';
import { RunService } from '../../../src/workflows/run-service.ts';
import { RunViews } from '../../../src/workflows/run-views.ts';
import { StepFailedError } from '../../../src/workflows/step-failures.ts';
import { validateWorkflowDefinition } from '../../../src/workflows/workflow-definition.ts';
import { InMemoryRunExecutions, InMemoryRunStore, InMemoryWorkflowStore } from '../../support/memory/workflows.ts';
import { engineTasks, runWorkflowMachine } from '../../support/workflow-run-machine.ts';

// The run engine over in-memory ports, its tasks called by the real workflow run state machine
// (aws-local-stepfunctions): what a client then reads is the run as the API shows it and its event.

const workspaceId = 'ws_engine';
let store: InMemoryRunStore;
let workflows: InMemoryWorkflowStore;
let executions: InMemoryRunExecutions;
let events: EventEnvelope[];
let webFunctionCalls: unknown[];
let webFunctionAnswer: (evaluatedWith: unknown) => Promise<{ status: number; body: unknown }>;
let engine: RunEngine;
let views: RunViews;
let inlineBudgetMs: number | undefined;
let service: RunService;

beforeEach(() => {
  inlineBudgetMs = undefined;
  buildEngine();
});

function buildEngine() {
  store = new InMemoryRunStore();
  workflows = new InMemoryWorkflowStore();
  executions = new InMemoryRunExecutions();
  events = [];
  webFunctionCalls = [];
  webFunctionAnswer = async () => ({ status: 200, body: { ok: true } });
  views = new RunViews(store);
  engine = new RunEngine({
    store,
    workflows,
    executions,
    events: { record: async (_workspaceId, event) => (events.push(event), true) },
    views,
    steps: {
      callWebFunction: async (evaluatedWith) => {
        webFunctionCalls.push(evaluatedWith);
        return { ...(await webFunctionAnswer(evaluatedWith)), headers: {} } as never;
      },
      startDocumentInsights: async () => {
        throw new Error('no document_insights step in these tests');
      },
    },
    ...(inlineBudgetMs !== undefined ? { inlineBudgetMs } : {}),
  });
  service = new RunService({ engine, views, store, workflows, executions });
}

async function publish(workflowId: string, steps: unknown[]): Promise<void> {
  const validated = validateWorkflowDefinition({ id: workflowId, name: workflowId, steps });
  if (!validated.ok) throw new Error(JSON.stringify(validated.problems));
  await workflows.publish(workspaceId, workflowId, validated.definition, JSON.stringify(steps));
}

/** POST /workflows/{id}/runs, then the execution it started, to its end; the run as GET shows it. */
async function runToEnd(workflowId: string, body: unknown) {
  const started = await service.startRun(workspaceId, workflowId, async () => body);
  await runWorkflowMachine({ workspaceId, runId: started.id }, engineTasks(engine));
  return views.getRun(workspaceId, started.id);
}

describe('RunEngine over in-memory ports, driven by the workflow run state machine', () => {
  it('runs linear transforms, each reading the one before, to COMPLETED with its event', async () => {
    await publish('wf_linear', [
      { id: 'a', type: 'transform', with: { value: '{{ body.n }}' } },
      { id: 'b', type: 'transform', needs: ['a'], with: { value: '{{ steps.a.output.value + 1 }}' } },
      { id: 'c', type: 'transform', needs: ['b'], with: { value: '{{ steps.b.output.value * 10 }}', label: 'total {{ steps.b.output.value }}' } },
    ]);

    const run = await runToEnd('wf_linear', { n: 4 });

    expect(run).toMatchObject({ status: 'COMPLETED', progress: { stepsCompleted: 3, stepsTotal: 3 } });
    expect(run.steps!.map((step) => [step.id, step.status, step.output])).toEqual([
      ['a', 'COMPLETED', { value: 4 }],
      ['b', 'COMPLETED', { value: 5 }],
      ['c', 'COMPLETED', { value: 50, label: 'total 5' }],
    ]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ eventType: 'workflow.run.completed', data: { runId: run.id, workflowId: 'wf_linear', status: 'COMPLETED', error: null } });
  });

  it('runs parallel branches and their join, and skips a step whose if is false', async () => {
    await publish('wf_branches', [
      { id: 'left', type: 'transform', with: { v: 1 } },
      { id: 'right', type: 'transform', with: { v: 2 } },
      { id: 'never', type: 'transform', if: 'body.wanted = true', with: { v: 3 } },
      { id: 'join', type: 'transform', needs: ['left', 'right'], with: { sum: '{{ steps.left.output.v + steps.right.output.v }}' } },
    ]);

    const run = await runToEnd('wf_branches', { wanted: false });

    expect(run.status).toBe('COMPLETED');
    expect(Object.fromEntries(run.steps!.map((step) => [step.id, step.status]))).toEqual({ left: 'COMPLETED', right: 'COMPLETED', never: 'SKIPPED', join: 'COMPLETED' });
    expect(run.steps!.find((step) => step.id === 'join')!.output).toEqual({ sum: 3 });
    expect(run.progress).toEqual({ stepsCompleted: 4, stepsTotal: 4 });
  });

  it('fails the run on a failed web_function, naming the step, and skips what needed it', async () => {
    webFunctionAnswer = async () => {
      throw new StepFailedError('The endpoint answered 500.', { status: 500 });
    };
    await publish('wf_failing', [
      { id: 'call', type: 'web_function', with: { url: 'https://hooks.example.com/x', body: { n: '{{ body.n }}' } } },
      { id: 'after', type: 'transform', needs: ['call'], with: { done: true } },
    ]);

    const run = await runToEnd('wf_failing', { n: 7 });

    expect(webFunctionCalls).toEqual([expect.objectContaining({ url: 'https://hooks.example.com/x', body: { n: 7 } })]);
    expect(run).toMatchObject({ status: 'FAILED', error: { code: 'WORKFLOW_STEP_FAILED', message: 'Step "call" (web_function) failed: The endpoint answered 500.' } });
    expect(run.steps!.map((step) => [step.id, step.status])).toEqual([
      ['call', 'FAILED'],
      ['after', 'SKIPPED'],
    ]);
    expect(run.steps![0]!.output).toEqual({ status: 500 });
    expect(events[0]).toMatchObject({ eventType: 'workflow.run.failed', data: { error: { code: 'WORKFLOW_STEP_FAILED' } } });
  });

  it('fails a step whose expression fails on the run data with WORKFLOW_INPUT_INVALID', async () => {
    await publish('wf_bad_input', [{ id: 'pick', type: 'delay', with: { seconds: '{{ body.wait }}' } }]);

    const run = await runToEnd('wf_bad_input', { wait: 'soon' });

    expect(run).toMatchObject({ status: 'FAILED', error: { code: 'WORKFLOW_INPUT_INVALID' } });
    expect(run.steps![0]!.message).toContain('steps[0].with.seconds');
  });

  it('waits out a delay step (a Wait state) and completes it', async () => {
    await publish('wf_delay', [
      { id: 'pause', type: 'delay', with: { seconds: '{{ body.wait }}' } },
      { id: 'after', type: 'transform', needs: ['pause'], with: { done: true } },
    ]);

    const run = await runToEnd('wf_delay', { wait: 30 });

    expect(run.status).toBe('COMPLETED');
    expect(run.steps!.map((step) => step.status)).toEqual(['COMPLETED', 'COMPLETED']);
  });

  it('leaves an ended step as it is when its task is retried, and records the run outcome once', async () => {
    await publish('wf_once', [{ id: 'only', type: 'transform', with: { at: '{{ body.n }}' } }]);
    const run = await runToEnd('wf_once', { n: 1 });

    await engine.runStep({ workspaceId, runId: run.id, stepId: 'only' });
    await engine.recordRunOutcome({ workspaceId, runId: run.id });
    const again = await views.getRun(workspaceId, run.id);

    expect(again).toEqual(run);
    expect(events).toHaveLength(1);
  });

  it('redrives a failed run: the completed step keeps its output, the failed one runs again', async () => {
    let healthy = false;
    webFunctionAnswer = async () => {
      if (!healthy) throw new StepFailedError('The endpoint answered 503.');
      return { status: 200, body: { healed: true } };
    };
    await publish('wf_redrive', [
      { id: 'first', type: 'transform', with: { n: '{{ body.n }}' } },
      { id: 'call', type: 'web_function', needs: ['first'], with: { url: 'https://hooks.example.com/y' } },
    ]);
    const failed = await runToEnd('wf_redrive', { n: 2 });
    healthy = true;

    await service.redriveRun(workspaceId, failed.id);
    await runWorkflowMachine({ workspaceId, runId: failed.id }, engineTasks(engine));
    const redriven = await views.getRun(workspaceId, failed.id);

    expect(failed.status).toBe('FAILED');
    expect(executions.started.map((start) => start.redriveCount)).toEqual([0, 1]);
    expect(redriven).toMatchObject({ status: 'COMPLETED', redriveCount: 1 });
    expect(redriven.steps!.map((step) => [step.id, step.status, step.output])).toEqual([
      ['first', 'COMPLETED', { n: 2 }],
      ['call', 'COMPLETED', { status: 200, body: { healed: true }, headers: {} }],
    ]);
    expect(events.map((event) => event.eventType)).toEqual(['workflow.run.failed', 'workflow.run.completed']);
  });

  it('runs a chain of transforms inside one plan: one write per step, none marked PROCESSING, each step with its own times', async () => {
    await publish('wf_inline', Array.from({ length: 5 }, (_, index) => ({
      id: `s${index}`,
      type: 'transform',
      ...(index > 0 ? { needs: [`s${index - 1}`] } : {}),
      with: { value: index === 0 ? '{{ body.n }}' : `{{ steps.s${index - 1}.output.value + 1 }}` },
    })));
    const started = await service.startRun(workspaceId, 'wf_inline', async () => ({ n: 10 }));
    const tasks = engineTasks(engine);
    const taskCalls: string[] = [];
    const counted = Object.fromEntries(Object.entries(tasks).map(([name, task]) => [name, (input: unknown) => (taskCalls.push(name), task(input))]));
    store.calls.length = 0;

    await runWorkflowMachine({ workspaceId, runId: started.id }, counted);
    const run = await views.getRun(workspaceId, started.id);

    expect(run).toMatchObject({ status: 'COMPLETED', progress: { stepsCompleted: 5, stepsTotal: 5 } });
    expect(run.steps!.map((step) => step.output)).toEqual([10, 11, 12, 13, 14].map((value) => ({ value })));
    for (const step of run.steps!) expect(step).toEqual(expect.objectContaining({ startedAt: expect.any(String), completedAt: expect.any(String), durationMs: expect.any(Number) }));
    expect(taskCalls).toEqual(['PlanRun', 'RecordRunOutcome']);
    expect(store.calls.filter((call) => call === 'settleStep')).toHaveLength(5);
    expect(store.calls).not.toContain('markStepProcessing');
  });

  it('hands inline steps to RunStep once a plan has spent its inline budget, with the same outcome', async () => {
    inlineBudgetMs = -1;
    buildEngine();
    await publish('wf_budget', [
      { id: 'a', type: 'transform', with: { value: '{{ body.n }}' } },
      { id: 'b', type: 'transform', needs: ['a'], with: { value: '{{ steps.a.output.value * 2 }}' } },
    ]);

    const run = await runToEnd('wf_budget', { n: 21 });

    expect(run).toMatchObject({ status: 'COMPLETED', progress: { stepsCompleted: 2, stepsTotal: 2 } });
    expect(run.steps!.map((step) => step.output)).toEqual([{ value: 21 }, { value: 42 }]);
    expect(store.calls.filter((call) => call === 'markStepProcessing')).toHaveLength(2);
  });

  it('the sweeper fails a run whose execution ended without recording it', async () => {
    await publish('wf_lost', [{ id: 'only', type: 'transform', with: {} }]);
    const started = await service.startRun(workspaceId, 'wf_lost', async () => ({}));
    executions.endExecution(started.id, 'ABORTED');

    const report = await service.sweep(0);
    const run = await views.getRun(workspaceId, started.id);

    expect(report).toEqual({ failedLost: 1, finished: 0 });
    expect(run).toMatchObject({ status: 'FAILED', error: { code: 'WORKFLOW_RUN_FAILED' } });
    expect(run.steps![0]).toMatchObject({ status: 'SKIPPED' });
  });
});
