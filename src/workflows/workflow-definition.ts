// A workflow definition as operators write it (DESIGN.md, Workflows): YAML or JSON, validated with
// every problem reported at once and its location, before anything is published.

import jsonata from 'jsonata';
import { z } from 'zod';
import { stepTypes } from './step-types.ts';
import { checkOutboundUrl } from '../outbound/outbound-url.ts';
import type { OutboundUrlPolicy } from '../outbound/outbound-settings.ts';
import { formatDocumentPath, plainIssueMessage, problemsFromZodIssues, readOperatorDocument, type DocumentProblem } from '../platform/operator-documents.ts';

export const maximumDelaySeconds = 86_400;
export const maximumForEachItems = 1_000;
export const webFunctionDefaults = { method: 'POST', timeoutSeconds: 10, retries: 2 } as const;
export const forEachDefaults = { maxConcurrency: 10 } as const;

/** `wf_` and then lowercase letters, digits, `_` or `-`; generated ids (`wf_<ULID>`) are accepted too. */
const workflowIdFormat = /^wf_(?:[a-z0-9_-]{1,64}|[0-9A-HJKMNP-TV-Z]{26})$/;

export function isWorkflowId(candidate: string): boolean {
  return workflowIdFormat.test(candidate);
}

export type TemplateValue =
  | { kind: 'literal' }
  /** Exactly `{{ expression }}`: evaluates to the expression's value, keeping its type. */
  | { kind: 'expression'; expression: string }
  /** Text with `{{ }}` inside: each expression's value is written into the text. */
  | { kind: 'interpolation'; parts: ({ text: string } | { expression: string })[] };

const embeddedExpression = /\{\{([\s\S]*?)\}\}/g;

/**
 * How a string inside `with` is read. An expression holding `{{` or `}}` itself is not supported as a
 * whole-value expression (the braces end it early); write such objects with `$merge` or spaces.
 */
export function readTemplate(value: string): TemplateValue {
  const whole = /^\{\{([\s\S]*)\}\}$/.exec(value);
  if (whole && !whole[1]!.includes('{{') && !whole[1]!.includes('}}')) return { kind: 'expression', expression: whole[1]!.trim() };
  const parts: ({ text: string } | { expression: string })[] = [];
  let position = 0;
  for (const match of value.matchAll(embeddedExpression)) {
    if (match.index > position) parts.push({ text: value.slice(position, match.index) });
    parts.push({ expression: match[1]!.trim() });
    position = match.index + match[0].length;
  }
  if (parts.length === 0) return { kind: 'literal' };
  if (position < value.length) parts.push({ text: value.slice(position) });
  return { kind: 'interpolation', parts };
}

const wholeExpression = /^\{\{[\s\S]*\}\}$/;

const expressionString = z
  .string()
  // Aborting: a string failing both a literal and this leaves the union to say which was meant.
  .regex(wholeExpression, { message: 'must be a literal value or a "{{ expression }}"', abort: true })
  .meta({ description: 'A JSONata expression written as "{{ expression }}"; its value keeps its type.' });

/** A literal of the given shape, or an expression evaluated at run time (checked then). */
function literalOrExpression<T extends z.ZodType>(literal: T) {
  return z.union([literal, expressionString]);
}

const templatedString = z.string().meta({ description: 'Text; "{{ expression }}" inside it is replaced by the value.' });

const jsonValue = z.json().meta({ description: 'Any JSON value; strings may hold {{ expressions }}.' });

const documentInsightsInputs = z
  .strictObject({
    file: jsonValue.optional().meta({ description: 'A file node from the run input, usually "{{ body.<part> }}".' }),
    fileId: templatedString.optional(),
    url: templatedString.optional(),
    labels: literalOrExpression(z.record(z.string(), z.string())).optional(),
  })
  .meta({ description: 'Exactly what to extract: one of file, fileId or url; optional labels.' });

// A literal URL is checked by the rules below (urlProblems), the run time's own outbound rules.
const webFunctionInputs = z.strictObject({
  url: z.string().meta({ description: 'HTTPS URL; outbound URL safety rules apply.' }),
  method: literalOrExpression(z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'])).default(webFunctionDefaults.method),
  headers: literalOrExpression(z.record(z.string(), templatedString)).optional(),
  body: jsonValue.optional(),
  timeoutSeconds: literalOrExpression(z.number().positive()).default(webFunctionDefaults.timeoutSeconds),
  retries: literalOrExpression(z.number().int().min(0)).default(webFunctionDefaults.retries),
});

const transformInputs = z.record(z.string(), jsonValue).meta({ description: 'The step output: this object, evaluated.' });

const delayInputs = z.strictObject({
  seconds: literalOrExpression(z.number().int().min(0).max(maximumDelaySeconds)),
});

const forEachInputs = z.strictObject({
  items: z.union([z.array(jsonValue).max(maximumForEachItems), expressionString]).meta({
    description: `A list, or an expression giving one; at most ${maximumForEachItems} items.`,
  }),
  workflowId: z
    .string()
    .regex(workflowIdFormat, 'must be a workflow id (wf_...)')
    .meta({ description: 'A published workflow of the same workspace, run once per item.' }),
  maxConcurrency: literalOrExpression(z.number().int().min(1)).default(forEachDefaults.maxConcurrency),
});

const stepIdSchema = z.string().min(1).max(128);

function stepSchema<Type extends string, Inputs extends z.ZodType>(type: Type, inputs: Inputs) {
  return z.strictObject({
    id: stepIdSchema,
    name: z.string().min(1).optional(),
    type: z.literal(type),
    needs: z.array(z.string()).default([]).meta({ description: 'Ids of the steps this one waits for.' }),
    if: z.string().min(1).optional().meta({ description: 'A bare JSONata expression; false skips the step.' }),
    with: inputs,
  });
}

// In a module of their own so that the run API's schemas name them without bundling this validator.
export { stepTypes, type StepType } from './step-types.ts';

const stepSchemas = {
  document_insights: stepSchema('document_insights', documentInsightsInputs),
  web_function: stepSchema('web_function', webFunctionInputs),
  transform: stepSchema('transform', transformInputs.default({})),
  delay: stepSchema('delay', delayInputs),
  for_each: stepSchema('for_each', forEachInputs),
};

export const workflowDefinitionSchema = z
  .strictObject({
    id: z
      .string()
      .regex(workflowIdFormat, 'must be wf_ and then lowercase letters, digits, _ or -')
      .optional()
      .meta({ description: 'Publishing the same id again makes a new version; without it, a new workflow.' }),
    name: z.string().min(1),
    description: z.string().optional(),
    steps: z.array(z.discriminatedUnion('type', [
        stepSchemas.document_insights,
        stepSchemas.web_function,
        stepSchemas.transform,
        stepSchemas.delay,
        stepSchemas.for_each,
      ]),).min(1),
  })
  .meta({
    title: 'Paperflow workflow definition',
    description: 'Steps of a workflow (a DAG through needs), published with paperflow-admin workflows publish.',
  });

export type WorkflowDefinition = z.output<typeof workflowDefinitionSchema>;
export type WorkflowStep = WorkflowDefinition['steps'][number];

/** The JSON Schema shipped in schemas/, generated from the zod schema above. */
export function workflowDefinitionJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(workflowDefinitionSchema, { io: 'input' }) as Record<string, unknown>;
}

export type DefinitionProblem = DocumentProblem;

export type DefinitionParseResult = { ok: true; definition: WorkflowDefinition } | { ok: false; problems: DefinitionProblem[] };

/** YAML is a superset of JSON, so YAML is the default; pass 'json' for strict JSON. */
export function parseWorkflowDefinition(text: string, format: 'yaml' | 'json' = 'yaml', options: DefinitionRules = {}): DefinitionParseResult {
  const read = readOperatorDocument(text, format);
  if (!read.ok) return read;
  return validateWorkflowDefinition(read.value, options);
}

export interface DefinitionRules {
  /**
   * The outbound rules a literal URL must pass, as at run time (the publisher passes the stack's,
   * which PAPERFLOW_ALLOW_PRIVATE_URLS relaxes locally); strict when not given.
   */
  urlPolicy?: OutboundUrlPolicy;
}

const strictUrlPolicy: OutboundUrlPolicy = { allowHttp: false, allowLoopback: false };

export function validateWorkflowDefinition(input: unknown, options: DefinitionRules = {}): DefinitionParseResult {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return { ok: false, problems: [{ path: '', message: 'must be an object with a name and a steps list' }] };
  }
  const result = workflowDefinitionSchema.safeParse(input, { error: plainIssueMessage });
  // The graph and expression rules run on whatever steps are readable, so one pass lists them all.
  const ruleProblems = stepRuleProblems(input, options.urlPolicy ?? strictUrlPolicy);
  // A rule's message is the clearer one where both speak of the same place (a missing input).
  const rulePaths = new Set(ruleProblems.map((problem) => problem.path));
  const shapeProblems = result.success ? [] : problemsFromIssues(result.error.issues, input).filter((problem) => !rulePaths.has(problem.path));
  const problems = [...shapeProblems, ...ruleProblems];
  if (problems.length === 0 && result.success) return { ok: true, definition: result.data };
  return { ok: false, problems: inDocumentOrder(problems) };
}

/** Without repeats, the document's own problems first, then step by step. */
export function inDocumentOrder(problems: readonly DefinitionProblem[]): DefinitionProblem[] {
  const unique = new Map(problems.map((problem) => [`${problem.path}\u0000${problem.message}`, problem]));
  return [...unique.values()].sort((left, right) => stepIndexOf(left) - stepIndexOf(right));
}

/** Problems of the document first, then step by step (a stable sort keeps each step's own order). */
function stepIndexOf(problem: DefinitionProblem): number {
  const match = /^steps\[(\d+)\]/.exec(problem.path);
  return match ? Number(match[1]) : -1;
}

/**
 * Workflow ids named by `for_each` steps: the publisher checks them against the workspace. Read from
 * the document as written, also when it has other problems, so that every problem is told at once.
 */
export function nestedWorkflowReferences(input: unknown): DefinitionReference[] {
  if (input === null || typeof input !== 'object') return [];
  return looseSteps(input).flatMap((step) => {
    const workflowId = (step.with as { workflowId?: unknown } | undefined)?.workflowId;
    return step.type === 'for_each' && typeof workflowId === 'string' && isWorkflowId(workflowId)
      ? [{ path: `steps[${step.index}].with.workflowId`, workflowId }]
      : [];
  });
}

export interface DefinitionReference {
  path: string;
  workflowId: string;
}

function problemsFromIssues(issues: readonly z.core.$ZodIssue[], input: unknown, basePath: readonly PropertyKey[] = []): DefinitionProblem[] {
  return problemsFromZodIssues(
    issues,
    input,
    (issue, value, path) => {
      if (issue.errors.length === 0) {
        // A discriminated union finds no step schema for this type.
        const typePath = path.at(-1) === 'type' ? path : [...path, 'type'];
        const type = path.at(-1) === 'type' ? value : (value as { type?: unknown } | undefined)?.type;
        return [
          type === undefined
            ? { path: formatDocumentPath(typePath), message: `is required: one of ${stepTypes.join(', ')}` }
            : { path: formatDocumentPath(typePath), message: `unknown type ${JSON.stringify(type)}: one of ${stepTypes.join(', ')}` },
        ];
      }
      // A literal or an expression (the last branch): report against the branch the author meant, a
      // "{{ }}" the expression and anything else the literal; other text is told that an expression
      // would do too.
      if (typeof value === 'string' && wholeExpression.test(value)) return problemsFromIssues(issue.errors[issue.errors.length - 1]!, value, path);
      const unionPath = formatDocumentPath(path);
      return problemsFromIssues(issue.errors[0]!, value, path).map((problem) =>
        typeof value === 'string' && problem.path === unionPath ? { ...problem, message: `${problem.message}, or a "{{ expression }}"` } : problem,
      );
    },
    basePath,
  );
}

interface LooseStep {
  index: number;
  id?: string;
  type?: unknown;
  needs: unknown[];
  if?: unknown;
  with?: unknown;
}

function looseSteps(input: object): LooseStep[] {
  const steps = (input as { steps?: unknown }).steps;
  if (!Array.isArray(steps)) return [];
  return steps.flatMap((step: unknown, index) => {
    if (step === null || typeof step !== 'object' || Array.isArray(step)) return [];
    const record = step as Record<string, unknown>;
    return [
      {
        index,
        id: typeof record.id === 'string' ? record.id : undefined,
        type: record.type,
        needs: Array.isArray(record.needs) ? record.needs : [],
        if: record.if,
        with: record.with,
      },
    ];
  });
}

// Rules across steps, and the ones zod cannot see: ids, needs, cycles, required inputs, expressions.
function stepRuleProblems(input: object, urlPolicy: OutboundUrlPolicy): DefinitionProblem[] {
  const steps = looseSteps(input);
  const problems: DefinitionProblem[] = [];
  const firstIndexById = new Map<string, number>();
  for (const step of steps) {
    if (step.id === undefined) continue;
    const first = firstIndexById.get(step.id);
    if (first === undefined) firstIndexById.set(step.id, step.index);
    else problems.push({ path: `steps[${step.index}].id`, message: `duplicate step id "${step.id}" (also steps[${first}])` });
  }
  for (const step of steps) {
    step.needs.forEach((need, needIndex) => {
      if (typeof need === 'string' && !firstIndexById.has(need)) {
        problems.push({ path: `steps[${step.index}].needs[${needIndex}]`, message: `unknown step "${need}"` });
      }
      if (need === step.id) problems.push({ path: `steps[${step.index}].needs[${needIndex}]`, message: 'a step cannot need itself' });
    });
    problems.push(...requiredInputProblems(step));
    problems.push(...urlProblems(step, urlPolicy));
    if (typeof step.if === 'string') problems.push(...expressionProblems(step.if, `steps[${step.index}].if`));
    problems.push(...templateProblems(step.with, `steps[${step.index}].with`));
  }
  problems.push(...cycleProblems(steps));
  return problems;
}

function requiredInputProblems(step: LooseStep): DefinitionProblem[] {
  const inputs = step.with !== null && typeof step.with === 'object' && !Array.isArray(step.with) ? (step.with as Record<string, unknown>) : {};
  const path = `steps[${step.index}].with`;
  const missing = (key: string) => (inputs[key] === undefined ? [{ path: `${path}.${key}`, message: `is required for a ${String(step.type)} step` }] : []);
  switch (step.type) {
    case 'document_insights':
      return ['file', 'fileId', 'url'].filter((key) => inputs[key] !== undefined).length === 1
        ? []
        : [{ path, message: 'needs exactly one of file, fileId or url' }];
    case 'web_function':
      return missing('url');
    case 'delay':
      return missing('seconds');
    case 'for_each':
      return [...missing('items'), ...missing('workflowId')];
    default:
      return [];
  }
}

/**
 * A literal URL meets the outbound rules the step applies when it runs (src/outbound: scheme, user
 * info, private and loopback literals, with the same local relaxation), so that publishing refuses
 * exactly what every run would fail on. Host names are resolved only at run time; a URL holding
 * `{{ }}` is checked once evaluated.
 */
function urlProblems(step: LooseStep, urlPolicy: OutboundUrlPolicy): DefinitionProblem[] {
  const url = (step.with as { url?: unknown } | undefined)?.url;
  if (typeof url !== 'string' || readTemplate(url).kind !== 'literal') return [];
  // web_function sends to the URL as written; a document URL follows the extraction API's rules.
  const rules = step.type === 'web_function' ? { refuseFragment: false } : step.type === 'document_insights' ? { refuseFragment: true } : undefined;
  if (!rules) return [];
  const checked = checkOutboundUrl(url, rules, urlPolicy);
  return checked.ok ? [] : [{ path: `steps[${step.index}].with.url`, message: checked.issue }];
}

/** Every `{{ }}` inside `with`, at any depth, must compile; so must each `if`. */
function templateProblems(value: unknown, path: string): DefinitionProblem[] {
  if (typeof value === 'string') {
    const template = readTemplate(value);
    if (template.kind === 'expression') return expressionProblems(template.expression, path);
    if (template.kind === 'interpolation') {
      return template.parts.flatMap((part) => ('expression' in part ? expressionProblems(part.expression, path) : []));
    }
    return [];
  }
  if (Array.isArray(value)) return value.flatMap((element, index) => templateProblems(element, `${path}[${index}]`));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, element]) => templateProblems(element, `${path}.${key}`));
  }
  return [];
}

function expressionProblems(expression: string, path: string): DefinitionProblem[] {
  if (expression.trim() === '') return [{ path, message: 'holds an empty expression' }];
  try {
    jsonata(expression);
    return [];
  } catch (error) {
    const { message, position } = error as { message?: string; position?: number };
    return [{ path, message: `expression does not compile${position === undefined ? '' : ` (at ${position})`}: ${message ?? String(error)}` }];
  }
}

/** Each cycle once, named by its step ids in order ("a -> b -> a"). */
function cycleProblems(steps: LooseStep[]): DefinitionProblem[] {
  const stepById = new Map<string, LooseStep>();
  for (const step of steps) if (step.id !== undefined && !stepById.has(step.id)) stepById.set(step.id, step);
  const state = new Map<string, 'visiting' | 'done'>();
  const trail: string[] = [];
  const problems: DefinitionProblem[] = [];
  const visit = (id: string) => {
    state.set(id, 'visiting');
    trail.push(id);
    for (const need of stepById.get(id)!.needs) {
      if (typeof need !== 'string' || need === id || !stepById.has(need)) continue;
      if (state.get(need) === 'visiting') {
        const cycle = [...trail.slice(trail.indexOf(need)), need];
        problems.push({ path: `steps[${stepById.get(need)!.index}].needs`, message: `cycle: ${cycle.join(' -> ')}` });
      } else if (!state.has(need)) {
        visit(need);
      }
    }
    trail.pop();
    state.set(id, 'done');
  };
  for (const id of stepById.keys()) if (!state.has(id)) visit(id);
  return problems;
}
