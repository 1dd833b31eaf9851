import * as z from 'zod';
import type { StepTypeDefinition } from '../step-type.ts';
import { literalOrExpression, missingInputs } from '../step-inputs.ts';

export const maximumDelaySeconds = 86_400;

/** delay: a Wait state of the run's execution (no compute while it waits), then RecordDelayCompleted. */
export const delayStep = {
  type: 'delay',
  inputs: z.strictObject({
    seconds: literalOrExpression(z.number().int().min(0).max(maximumDelaySeconds)),
  }),
  inputProblems: (inputs, path) => missingInputs(inputs, path, 'delay', ['seconds']),
  state: 'WaitForDelay',
  prepare: async (inputs, planning) => {
    const { seconds: template } = inputs as { seconds: unknown };
    const seconds = await planning.evaluate(template, 'seconds');
    if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 0 || seconds > maximumDelaySeconds) {
      throw planning.invalidInput('seconds', `must be a whole number of seconds from 0 to ${maximumDelaySeconds}, not ${JSON.stringify(seconds)}`);
    }
    return { delaySeconds: seconds };
  },
} as const satisfies StepTypeDefinition<'delay'>;
