import * as z from 'zod';
import { runStepState, type StepTypeDefinition } from '../step-type.ts';
import { jsonValue, literalOrExpression, literalUrlProblems, missingInputs, templatedString } from '../step-inputs.ts';

export const webFunctionDefaults = { method: 'POST', timeoutSeconds: 10, retries: 2 } as const;

/** web_function: one HTTPS call to the user's endpoint (steps/web-function.ts carries it out). */
export const webFunctionStep = {
  type: 'web_function',
  // A literal URL is checked by inputProblems below, the run time's own outbound rules.
  inputs: z.strictObject({
    url: z.string().meta({ description: 'HTTPS URL; outbound URL safety rules apply.' }),
    method: literalOrExpression(z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'])).default(webFunctionDefaults.method),
    headers: literalOrExpression(z.record(z.string(), templatedString)).optional(),
    body: jsonValue.optional(),
    timeoutSeconds: literalOrExpression(z.number().positive()).default(webFunctionDefaults.timeoutSeconds),
    retries: literalOrExpression(z.number().int().min(0)).default(webFunctionDefaults.retries),
  }),
  // The step sends to the URL as written, fragment included.
  inputProblems: (inputs, path, rules) => [
    ...missingInputs(inputs, path, 'web_function', ['url']),
    ...literalUrlProblems(inputs.url, path, { refuseFragment: false }, rules.outboundUrlProblem),
  ],
  state: runStepState,
  run: (evaluatedWith, services) => services.callWebFunction(evaluatedWith),
} as const satisfies StepTypeDefinition<'web_function'>;
