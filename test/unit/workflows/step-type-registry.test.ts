import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { stateMachines } from '../../../src/manifest/triggers.ts';
import { RunEngine } from '../../../src/workflows/run-engine.ts';
import { RunService } from '../../../src/workflows/run-service.ts';
import { RunViews } from '../../../src/workflows/run-views.ts';
import { missingInputs, templatedString } from '../../../src/workflows/step-inputs.ts';
import { runStepState, type StepTypeDefinition } from '../../../src/workflows/step-type.ts';
import { stepTypeRegistry } from '../../../src/workflows/step-types/registry.ts';
import { validateWorkflowDefinition, workflowDefinitionJsonSchema } from '../../../src/workflows/workflow-definition.ts';
import { InMemoryRunExecutions, InMemoryRunStore, InMemoryWorkflowStore } from '../../support/memory/workflows.ts';
import { engineTasks, runWorkflowMachine } from '../../support/workflow-run-machine.ts';

// A step type is one module and one registry line: a fixture type registered here is validated, is in
// the definition's JSON Schema and runs, with nothing else changed. The state machine's RouteStep
// Choice is held to the registry.

/** A RunStep type: its output is its text in capitals. */
const shoutStep = {
  type: 'shout',
  inputs: z.strictObject({ text: templatedString }),
  inputProblems: (inputs, path) => missingInputs(inputs, path, 'shout', ['text']),
  state: runStepState,
  run: async (evaluatedWith) => ({ text: String((evaluatedWith as { text: unknown }).text).toUpperCase() }),
} satisfies StepTypeDefinition;

/** A type carried out by a state of the machine (the delay's Wait), with what that state needs prepared. */
const settleStep = {
  type: 'settle',
  inputs: z.strictObject({ forSeconds: z.union([z.number().int().min(0), z.string()]) }),
  state: 'WaitForDelay',
  prepare: async (inputs, planning) => {
    const seconds = await planning.evaluate((inputs as { forSeconds: unknown }).forSeconds, 'forSeconds');
    if (typeof seconds !== 'number') throw planning.invalidInput('forSeconds', `must be a number, not ${JSON.stringify(seconds)}`);
    return { delaySeconds: seconds };
  },
} satisfies StepTypeDefinition;

const registry = stepTypeRegistry.with(shoutStep, settleStep);
const workspaceId = 'ws_registry';

const definitionUsingFixtures = {
  id: 'wf_fixture',
  name: 'Fixture types',
  steps: [
    { id: 'wait', type: 'settle', with: { forSeconds: '{{ body.seconds }}' } },
    { id: 'loud', type: 'shout', needs: ['wait'], with: { text: 'hello {{ body.name }}' } },
  ],
};

describe('the step type registry', () => {
  it('validates a definition using a registered fixture type, and tells its own input rules', () => {
    const accepted = validateWorkflowDefinition(definitionUsingFixtures, { stepTypes: registry });
    const missingText = validateWorkflowDefinition({ name: 'x', steps: [{ id: 'loud', type: 'shout', with: {} }] }, { stepTypes: registry });
    const unregistered = validateWorkflowDefinition(definitionUsingFixtures);

    expect(accepted).toMatchObject({ ok: true, definition: { steps: [{ type: 'settle' }, { type: 'shout', needs: ['wait'] }] } });
    expect(missingText).toEqual({ ok: false, problems: [{ path: 'steps[0].with.text', message: 'is required for a shout step' }] });
    expect(unregistered.ok).toBe(false);
    expect(unregistered.ok ? [] : unregistered.problems).toContainEqual({
      path: 'steps[0].type',
      message: 'unknown type "settle": one of document_insights, web_function, transform, delay, for_each',
    });
  });

  it('puts a registered fixture type in the JSON Schema of definitions', () => {
    const schema = JSON.stringify(workflowDefinitionJsonSchema(registry));
    const builtIn = JSON.stringify(workflowDefinitionJsonSchema());

    expect(schema).toContain('"type":{"type":"string","const":"shout"}');
    expect(schema).toContain('"type":{"type":"string","const":"settle"}');
    expect(builtIn).not.toContain('"const":"shout"');
  });

  it('runs a registered fixture type through the workflow run state machine, in RunStep and in a state of its own', async () => {
    const store = new InMemoryRunStore();
    const workflows = new InMemoryWorkflowStore();
    const executions = new InMemoryRunExecutions();
    const views = new RunViews(store);
    const engine = new RunEngine({
      store,
      workflows,
      executions,
      views,
      events: { record: async () => true },
      steps: { callWebFunction: async () => Promise.reject(new Error('not used')), startDocumentInsights: async () => Promise.reject(new Error('not used')) },
      stepTypes: registry,
    });
    const validated = validateWorkflowDefinition(definitionUsingFixtures, { stepTypes: registry });
    if (!validated.ok) throw new Error(JSON.stringify(validated.problems));
    await workflows.publish(workspaceId, 'wf_fixture', validated.definition, '');
    const service = new RunService({ engine, views, store, workflows, executions });
    const plans: unknown[] = [];
    const tasks = engineTasks(engine);

    const started = await service.startRun(workspaceId, 'wf_fixture', async () => ({ name: 'ada', seconds: 5 }));
    await runWorkflowMachine({ workspaceId, runId: started.id }, { ...tasks, PlanRun: async (input) => plans.push(await tasks.PlanRun!(input)) && plans.at(-1) });
    const run = await views.getRun(workspaceId, started.id);

    expect(plans[0]).toEqual({ outcome: 'dispatch', readySteps: [{ stepId: 'wait', kind: 'settle', state: 'WaitForDelay', delaySeconds: 5 }] });
    expect(plans[1]).toEqual({ outcome: 'dispatch', readySteps: [{ stepId: 'loud', kind: 'shout', state: 'RunStep' }] });
    expect(run.status).toBe('COMPLETED');
    expect(run.steps!.map((step) => [step.id, step.type, step.status, step.output])).toEqual([
      ['wait', 'settle', 'COMPLETED', undefined],
      ['loud', 'shout', 'COMPLETED', { text: 'HELLO ADA' }],
    ]);
  });

  it('refuses two types of one name, and a RunStep type without a runner', () => {
    expect(() => stepTypeRegistry.with({ ...shoutStep, type: 'transform' })).toThrow('Two step types have the same name.');
    expect(() => stepTypeRegistry.with({ type: 'idle', inputs: z.object({}), state: runStepState })).toThrow('a RunStep type has a run');
  });
});

describe('statemachines/workflow-run.asl.json RouteStep', () => {
  it('has one choice for each state the registered types name, to that state, and RunStep by default', async () => {
    const machine = stateMachines.find((candidate) => candidate.name === 'workflowRun')!;
    const definition = JSON.parse(await readFile(resolve(import.meta.dirname, '../../..', machine.definitionFile), 'utf8'));
    const branch = definition.States.RunReadySteps.ItemProcessor;
    const routeStep = branch.States[branch.StartAt];

    const ownStates = [...new Set(stepTypeRegistry.types.map((type) => type.state).filter((state) => state !== runStepState))].sort();
    const choices = routeStep.Choices.map((choice: { Variable: string; StringEquals: string; Next: string }) => choice);

    expect(routeStep.Type).toBe('Choice');
    expect(routeStep.Default).toBe(runStepState);
    expect(choices.map((choice: { StringEquals: string }) => choice.StringEquals).sort()).toEqual(ownStates);
    for (const choice of choices) expect(choice).toEqual({ Variable: '$.step.state', StringEquals: choice.Next, Next: choice.Next });
    for (const state of [...ownStates, runStepState]) expect(branch.States).toHaveProperty(state);
  });
});
