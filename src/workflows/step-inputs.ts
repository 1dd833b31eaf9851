// The building blocks of a step's `with` schema (step-types/): literals, `{{ expressions }}` and
// templated text, as operators write them.

import * as z from 'zod';

/** `wf_` and then lowercase letters, digits, `_` or `-`; generated ids (`wf_<ULID>`) are accepted too. */
export const workflowIdFormat = /^wf_(?:[a-z0-9_-]{1,64}|[0-9A-HJKMNP-TV-Z]{26})$/;

export function isWorkflowId(candidate: string): boolean {
  return workflowIdFormat.test(candidate);
}

export const wholeExpression = /^\{\{[\s\S]*\}\}$/;

export const expressionString = z
  .string()
  // Aborting: a string failing both a literal and this leaves the union to say which was meant.
  .regex(wholeExpression, { message: 'must be a literal value or a "{{ expression }}"', abort: true })
  .meta({ description: 'A JSONata expression written as "{{ expression }}"; its value keeps its type.' });

/** A literal of the given shape, or an expression evaluated at run time (checked then). */
export function literalOrExpression<T extends z.ZodType>(literal: T) {
  return z.union([literal, expressionString]);
}

export const templatedString = z.string().meta({ description: 'Text; "{{ expression }}" inside it is replaced by the value.' });

export const jsonValue = z.json().meta({ description: 'Any JSON value; strings may hold {{ expressions }}.' });

/** `[{path, message}]` for each input of `keys` that `inputs` lacks. */
export function missingInputs(inputs: Record<string, unknown>, path: string, type: string, keys: readonly string[]) {
  return keys.filter((key) => inputs[key] === undefined).map((key) => ({ path: `${path}.${key}`, message: `is required for a ${type} step` }));
}

/** A literal URL (no `{{ }}`) and the problem the outbound rules find with it, if any. */
export function literalUrlProblems(
  url: unknown,
  path: string,
  options: { refuseFragment: boolean },
  outboundUrlProblem: (url: string, options: { refuseFragment: boolean }) => string | undefined,
) {
  if (typeof url !== 'string' || /\{\{[\s\S]*?\}\}/.test(url)) return [];
  const problem = outboundUrlProblem(url, options);
  return problem ? [{ path: `${path}.url`, message: problem }] : [];
}
