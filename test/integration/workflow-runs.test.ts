import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspaceKey } from '../support/extraction-client.ts';
import { startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { publishDefinition, WorkflowRunClient } from '../support/workflow-runs.ts';

let stack: StackUnderTest;
let client: WorkflowRunClient;
const workspaceId = 'ws_runs';

beforeAll(async () => {
  process.env.PAPERFLOW_LOCAL_WAIT_TIME_SCALE = '0.01';
  process.env.PAPERFLOW_LOCAL_RETRY_INTERVAL_MS = '10';
  stack = await startStackUnderTest();
  client = new WorkflowRunClient(stack, await workspaceKey(workspaceId));
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('a run', () => {
  it('runs two parallel branches and their join, each output feeding the next', async () => {
    const workflowId = await publishDefinition(workspaceId, [
      { id: 'left', type: 'transform', with: { value: '{{ body.number * 2 }}' } },
      { id: 'right', type: 'transform', with: { value: '{{ body.number + 1 }}' } },
      { id: 'join', type: 'transform', needs: ['left', 'right'], with: { sum: '{{ steps.left.output.value + steps.right.output.value }}' } },
    ]);

    const run = await client.run(workflowId, { number: 5 });

    expect(run.status).toBe('COMPLETED');
    expect(run.steps.map((step: any) => [step.id, step.status])).toEqual([['left', 'COMPLETED'], ['right', 'COMPLETED'], ['join', 'COMPLETED']]);
    expect(run.steps[2].output).toEqual({ sum: 16 });
    expect(run.progress).toEqual({ stepsCompleted: 3, stepsTotal: 3 });
  });
});
