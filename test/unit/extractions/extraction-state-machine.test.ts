import { access, readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { StateMachine } from 'aws-local-stepfunctions';
import { describe, expect, it } from 'vitest';
import { stateMachines, triggers } from '../../../src/manifest/triggers.ts';
import { tasksOf } from '../../../src/platform/trigger-table.ts';

// The ASL file is the source of truth (CDK and the local endpoint only substitute placeholders).
const root = resolve(import.meta.dirname, '../../..');
const extractionStateMachine = stateMachines.find((machine) => machine.name === 'extraction')!;
const extractionTasks = tasksOf('extraction', triggers);

interface State {
  Type: string;
  Resource?: string;
  Retry?: { ErrorEquals: string[]; MaxAttempts?: number; BackoffRate?: number }[];
  Catch?: { ErrorEquals: string[]; Next: string }[];
  Next?: string;
  End?: boolean;
}

async function definition(): Promise<{ text: string; states: Record<string, State>; TimeoutSeconds?: number }> {
  const text = await readFile(resolve(root, extractionStateMachine.definitionFile), 'utf8');
  const parsed = JSON.parse(text) as { States: Record<string, State>; TimeoutSeconds?: number };
  return { text, states: parsed.States, TimeoutSeconds: parsed.TimeoutSeconds };
}

describe('statemachines/extraction.asl.json', () => {
  it('names only placeholders that map to existing handler modules', async () => {
    const { text } = await definition();
    const placeholders = new Set([...text.matchAll(/\$\{(\w+)\}/g)].map((match) => match[1]!));

    expect([...placeholders].sort()).toEqual(extractionTasks.map((task) => task.placeholder).sort());
    for (const task of extractionTasks) await expect(access(resolve(root, task.handler))).resolves.toBeUndefined();
  });

  it('is valid ASL once the placeholders are filled (JSONPath only)', async () => {
    const { text } = await definition();
    const filled = text.replace(/\$\{(\w+)\}/g, (_whole, name: string) => `arn:aws:lambda:us-east-1:123456789012:function:${name}`);

    expect(() => new StateMachine(JSON.parse(filled), { validationOptions: { checkPaths: true, checkArn: true } })).not.toThrow();
    expect(text).not.toContain('JSONata');
  });

  it('retries transient errors with backoff and catches everything else into RecordFailure', async () => {
    const { states } = await definition();
    const tasks = Object.entries(states).filter(([, state]) => state.Type === 'Task');

    for (const [name, state] of tasks) {
      expect(state.Retry?.length, name).toBeGreaterThan(0);
      for (const retrier of state.Retry!) expect(retrier.BackoffRate ?? 2, name).toBeGreaterThan(1);
      if (name === 'RecordFailure') continue;
      expect(state.Retry!.flatMap((retrier) => retrier.ErrorEquals), name).toContain('Lambda.ServiceException');
      expect(state.Catch, name).toEqual([{ ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: 'RecordFailure' }]);
    }
    expect(states.RecordFailure!.Retry![0]!.ErrorEquals).toEqual(['States.ALL']);
    expect(states.RecordFailure!.End).toBe(true);
  });

  it('bounds the execution below the sweeper deadline', async () => {
    const { TimeoutSeconds } = await definition();

    expect(TimeoutSeconds).toBeGreaterThan(0);
    expect(TimeoutSeconds).toBeLessThan(20 * 60);
  });
});
