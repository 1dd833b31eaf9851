import * as z from 'zod';
import type { ForEachItems } from '../run-store.ts';
import { StepFailedError } from '../step-failures.ts';
import type { StepTypeDefinition } from '../step-type.ts';
import { expressionString, jsonValue, literalOrExpression, missingInputs, workflowIdFormat } from '../step-inputs.ts';

export const maximumForEachItems = 1_000;
export const forEachDefaults = { maxConcurrency: 10 } as const;

/** for_each: one nested run of another workflow per item, an inner Map of the run's execution (RunNestedRuns). */
export const forEachStep = {
  type: 'for_each',
  inputs: z.strictObject({
    items: z.union([z.array(jsonValue).max(maximumForEachItems), expressionString]).meta({
      description: `A list, or an expression giving one; at most ${maximumForEachItems} items.`,
    }),
    workflowId: z
      .string()
      .regex(workflowIdFormat, 'must be a workflow id (wf_...)')
      .meta({ description: 'A published workflow of the same workspace, run once per item.' }),
    maxConcurrency: literalOrExpression(z.number().int().min(1)).default(forEachDefaults.maxConcurrency),
  }),
  inputProblems: (inputs, path) => missingInputs(inputs, path, 'for_each', ['items', 'workflowId']),
  state: 'RunNestedRuns',
  // Evaluated once: a later plan (a lost batch handed out again, a redrive) keeps the stored items, as
  // the nested runs' ids derive from them.
  prepare: async (inputs, planning) => {
    const forEach = planning.evaluatedForEach ?? (await evaluateForEach(inputs as { items: unknown; workflowId: string; maxConcurrency?: unknown }, planning));
    return { itemIndexes: forEach.items.map((_, index) => index), maxConcurrency: forEach.maxConcurrency, forEach };
  },
} as const satisfies StepTypeDefinition<'for_each'>;

async function evaluateForEach(inputs: { items: unknown; workflowId: string; maxConcurrency?: unknown }, planning: Parameters<NonNullable<StepTypeDefinition['prepare']>>[1]): Promise<ForEachItems> {
  const items = await planning.evaluate(inputs.items, 'items');
  if (!Array.isArray(items)) throw planning.invalidInput('items', `must give a list, not ${JSON.stringify(items) ?? 'nothing'}`);
  if (items.length > maximumForEachItems) throw planning.invalidInput('items', `gives ${items.length} items; at most ${maximumForEachItems}`);
  const maxConcurrency = await planning.evaluate(inputs.maxConcurrency ?? forEachDefaults.maxConcurrency, 'maxConcurrency');
  if (typeof maxConcurrency !== 'number' || !Number.isInteger(maxConcurrency) || maxConcurrency < 1) {
    throw planning.invalidInput('maxConcurrency', `must be a whole number of 1 or more, not ${JSON.stringify(maxConcurrency)}`);
  }
  const workflow = await planning.workflows.get(planning.workspaceId, inputs.workflowId);
  if (!workflow) throw new StepFailedError(`Workflow ${inputs.workflowId} does not exist in this workspace.`);
  if (workflow.status !== 'enabled') throw new StepFailedError(`Workflow ${inputs.workflowId} is disabled.`);
  return { items, workflowId: inputs.workflowId, maxConcurrency };
}
