// Run-time evaluation of the expressions in a definition (DESIGN.md, Workflows, Expressions). Step
// Functions only passes data along; every `{{ }}` and `if` is evaluated here, in the task Lambdas, with
// the `jsonata` package that publishing already compiled them with.

import jsonata from 'jsonata';
import { readTemplate } from './workflow-definition.ts';

export type StepStatus = 'QUEUED' | 'PROCESSING' | 'COMPLETED' | 'FAILED' | 'SKIPPED';

/** What an expression can read: the run input, earlier steps, the run, and a `for_each` child's item. */
export interface ExpressionContext {
  body: unknown;
  steps: Record<string, { status: StepStatus; output?: unknown }>;
  run: { id: string; workflowId: string };
  item?: unknown;
  index?: number;
}

/**
 * An expression that fails on the run's data: the run fails with WORKFLOW_INPUT_INVALID, naming the
 * place (`steps[2].with.amount`) so that the author can find it.
 */
export class ExpressionEvaluationError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
    this.name = 'ExpressionEvaluationError';
  }
}

/**
 * A user's expression runs inside a task Lambda: a recursive function, a huge range or deep nesting must
 * not hold the Lambda until its timeout, so jsonata's own guardrails bound each evaluation.
 */
export const expressionLimits = { timeout: 1_000, stack: 200, sequence: 100_000 } as const;

/**
 * Evaluates a step's `with` (or any part of it): a string that is exactly `{{ e }}` becomes e's value
 * with its type, `{{ }}` inside text is written into the text, everything else is kept as written.
 * `path` names the value in the definition for error messages.
 *
 * An expression that gives nothing (a path the run's data does not have) fails: a run must not
 * complete with data it lost, such as a misspelt field name turning a title into "Invoice ". Only a
 * conditional the author wrote (`{{ body.vip ? "VIP" }}`) may give nothing on purpose: its key is then
 * left out and its text is empty. A default is written with `? :` or `$exists`.
 */
export async function evaluateTemplate(value: unknown, context: ExpressionContext, path = 'with'): Promise<unknown> {
  if (typeof value === 'string') return evaluateTemplateString(value, context, path);
  if (Array.isArray(value)) {
    return Promise.all(value.map((element, index) => evaluateTemplate(element, context, `${path}[${index}]`)));
  }
  if (value !== null && typeof value === 'object') {
    const evaluated: Record<string, unknown> = {};
    for (const [key, element] of Object.entries(value)) {
      const result = await evaluateTemplate(element, context, `${path}.${key}`);
      // An expression that matches nothing leaves the key out, as JSON has no `undefined`.
      if (result !== undefined) evaluated[key] = result;
    }
    return evaluated;
  }
  return value;
}

/**
 * A step's `if`: a bare expression; the step runs when it is truthy in JSONata's sense. False skips
 * the step, and so does a filter that matches nothing (`body.orders[amount > 100]`: there is no such
 * order). Any other nothing (`body.vip`, or `steps.a.output.total > 1000` when there is no total) is
 * missing data and fails like a `{{ }}`; `body.vip = true` or `$exists(body.vip) and body.vip` read an
 * absent flag as false.
 */
export async function evaluateCondition(expression: string, context: ExpressionContext, path = 'if'): Promise<boolean> {
  const result = await evaluateExpression(expression, context, path);
  if (result === undefined && !givesNothingOnPurpose(expression) && !filtersForMatches(expression)) throw missingValue(path, expression);
  return jsonataBoolean(result);
}

/** An expression that gave nothing where a value was needed: the step fails, naming it. */
function missingValue(path: string, expression: string): ExpressionEvaluationError {
  return new ExpressionEvaluationError(path, `"${expression}" gives nothing on this run's data; write a default (\`? :\` or $exists) if it may be missing`);
}

/** The author's own conditional (`a ? b`, `a ? b : c`) decides that nothing is an answer. */
function givesNothingOnPurpose(expression: string): boolean {
  return astOf(expression)?.type === 'condition';
}

/** A path with a filter (`orders[amount > 100]`) asks whether anything matches: nothing is "no". */
function filtersForMatches(expression: string): boolean {
  const ast = astOf(expression) as { type?: string; steps?: { stages?: { type: string }[] }[] } | undefined;
  return ast?.type === 'path' && (ast.steps ?? []).some((step) => (step.stages ?? []).some((stage) => stage.type === 'filter'));
}

function astOf(expression: string): jsonata.ExprNode | undefined {
  try {
    return jsonata(expression).ast();
  } catch {
    return undefined;
  }
}

async function evaluateTemplateString(value: string, context: ExpressionContext, path: string): Promise<unknown> {
  const template = readTemplate(value);
  switch (template.kind) {
    case 'literal':
      return value;
    case 'expression':
      return evaluateRequired(template.expression, context, path);
    case 'interpolation': {
      let text = '';
      for (const part of template.parts) {
        text += 'text' in part ? part.text : asText(await evaluateRequired(part.expression, context, path));
      }
      return text;
    }
  }
}

async function evaluateRequired(expression: string, context: ExpressionContext, path: string): Promise<unknown> {
  const result = await evaluateExpression(expression, context, path);
  if (result === undefined && !givesNothingOnPurpose(expression)) throw missingValue(path, expression);
  return result;
}

export async function evaluateExpression(expression: string, context: ExpressionContext, path: string): Promise<unknown> {
  let compiled: ReturnType<typeof jsonata>;
  try {
    compiled = jsonata(expression, expressionLimits);
  } catch (error) {
    throw new ExpressionEvaluationError(path, `the expression does not compile: ${messageOf(error)}`);
  }
  try {
    return plainJson(await compiled.evaluate(context));
  } catch (error) {
    throw new ExpressionEvaluationError(path, `the expression failed: ${messageOf(error)}`);
  }
}

/** jsonata marks result arrays as sequences and may return functions; a step output is plain JSON. */
function plainJson(result: unknown): unknown {
  if (result === undefined) return undefined;
  if (typeof result === 'function') return undefined;
  const text = JSON.stringify(result);
  return text === undefined ? undefined : (JSON.parse(text) as unknown);
}

function asText(result: unknown): string {
  if (result === undefined || result === null) return '';
  if (typeof result === 'string') return result;
  return JSON.stringify(result);
}

/** JSONata's `$boolean` rules: empty strings, zero, empty arrays and objects, null and nothing are false. */
function jsonataBoolean(result: unknown): boolean {
  if (result === undefined || result === null) return false;
  if (Array.isArray(result)) return result.some((element) => jsonataBoolean(element));
  if (typeof result === 'object') return Object.keys(result).length > 0;
  if (typeof result === 'string') return result.length > 0;
  if (typeof result === 'number') return result !== 0;
  return result === true;
}

function messageOf(error: unknown): string {
  const { message, position } = error as { message?: string; position?: number };
  return `${message ?? String(error)}${position === undefined ? '' : ` (at ${position})`}`;
}
