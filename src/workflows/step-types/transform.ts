import * as z from 'zod';
import { runStepState, type StepTypeDefinition } from '../step-type.ts';
import { jsonValue } from '../step-inputs.ts';

/** transform: the step's output is its `with`, evaluated; pure, so the plan runs it inline. */
export const transformStep = {
  type: 'transform',
  inputs: z.record(z.string(), jsonValue).meta({ description: 'The step output: this object, evaluated.' }).default({}),
  state: runStepState,
  inline: true,
  run: async (evaluatedWith) => evaluatedWith,
} as const satisfies StepTypeDefinition<'transform'>;
