// A workflow definition as operators write it (DESIGN.md, Workflows): YAML or JSON, validated with
// every problem reported at once and its location, before anything is published.

import jsonata from 'jsonata';
import * as z from 'zod';
import { checkOutboundUrl } from '../outbound/outbound-url.ts';
import type { OutboundUrlPolicy } from '../outbound/outbound-settings.ts';
import { formatDocumentPath, plainIssueMessage, problemsFromZodIssues, type DocumentProblem } from '../platform/operator-documents.ts';
import type { StepTypeRegistry } from './step-type.ts';
import { isWorkflowId, wholeExpression, workflowIdFormat } from './step-inputs.ts';
import { stepTypeRegistry } from './step-types/registry.ts';

export { isWorkflowId } from './step-inputs.ts';
export { maximumDelaySeconds } from './step-types/delay.ts';
export { forEachDefaults, maximumForEachItems } from './step-types/for-each.ts';
export { webFunctionDefaults } from './step-types/web-function.ts';
export { stepTypes, type StepType } from './step-types/registry.ts';

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

const stepIdSchema = z.string().min(1).max(128);

function stepSchema(type: string, inputs: z.ZodType) {
  return z.strictObject({
    id: stepIdSchema,
    name: z.string().min(1).optional(),
    type: z.literal(type),
    needs: z.array(z.string()).default([]).meta({ description: 'Ids of the steps this one waits for.' }),
    if: z.string().min(1).optional().meta({ description: 'A bare JSONata expression; false skips the step.' }),
    with: inputs,
  });
}

/** The schema of a definition whose steps are of the registry's types (the built-in ones by default). */
export function workflowDefinitionSchemaOf(registry: StepTypeRegistry) {
  const [first, ...others] = registry.types.map((type) => stepSchema(type.type, type.inputs));
  return z
    .strictObject({
      id: z
        .string()
        .regex(workflowIdFormat, 'must be wf_ and then lowercase letters, digits, _ or -')
        .optional()
        .meta({ description: 'Publishing the same id again makes a new version; without it, a new workflow.' }),
      name: z.string().min(1),
      description: z.string().optional(),
      steps: z.array(z.discriminatedUnion('type', [first!, ...others])).min(1),
    })
    .meta({
      title: 'Paperflow workflow definition',
      description: 'Steps of a workflow (a DAG through needs), published with paperflow-admin workflows publish.',
    });
}

export const workflowDefinitionSchema = workflowDefinitionSchemaOf(stepTypeRegistry);

/** One step of a validated definition; `with` is as its type's schema gave it. */
export interface WorkflowStep {
  id: string;
  name?: string | undefined;
  /** A registered step type (step-types/registry.ts). */
  type: string;
  needs: string[];
  if?: string | undefined;
  with?: unknown;
}

export interface WorkflowDefinition {
  id?: string | undefined;
  name: string;
  description?: string | undefined;
  steps: WorkflowStep[];
}

/** The JSON Schema shipped in schemas/, generated from the zod schema above. */
export function workflowDefinitionJsonSchema(registry: StepTypeRegistry = stepTypeRegistry): Record<string, unknown> {
  return z.toJSONSchema(workflowDefinitionSchemaOf(registry), { io: 'input' }) as Record<string, unknown>;
}

export type DefinitionProblem = DocumentProblem;

export type DefinitionParseResult = { ok: true; definition: WorkflowDefinition } | { ok: false; problems: DefinitionProblem[] };

export interface DefinitionRules {
  /** The step types a definition may use: the built-in ones unless given. */
  stepTypes?: StepTypeRegistry;
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
  const registry = options.stepTypes ?? stepTypeRegistry;
  const schema = registry === stepTypeRegistry ? workflowDefinitionSchema : workflowDefinitionSchemaOf(registry);
  const result = schema.safeParse(input, { error: plainIssueMessage });
  // The graph and expression rules run on whatever steps are readable, so one pass lists them all.
  const ruleProblems = stepRuleProblems(input, registry, options.urlPolicy ?? strictUrlPolicy);
  // A rule's message is the clearer one where both speak of the same place (a missing input).
  const rulePaths = new Set(ruleProblems.map((problem) => problem.path));
  const shapeProblems = result.success ? [] : problemsFromIssues(result.error.issues, input, registry.names).filter((problem) => !rulePaths.has(problem.path));
  const problems = [...shapeProblems, ...ruleProblems];
  if (problems.length === 0 && result.success) return { ok: true, definition: result.data as WorkflowDefinition };
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

function problemsFromIssues(issues: readonly z.core.$ZodIssue[], input: unknown, typeNames: readonly string[], basePath: readonly PropertyKey[] = []): DefinitionProblem[] {
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
            ? { path: formatDocumentPath(typePath), message: `is required: one of ${typeNames.join(', ')}` }
            : { path: formatDocumentPath(typePath), message: `unknown type ${JSON.stringify(type)}: one of ${typeNames.join(', ')}` },
        ];
      }
      // A literal or an expression (the last branch): report against the branch the author meant, a
      // "{{ }}" the expression and anything else the literal; other text is told that an expression
      // would do too.
      if (typeof value === 'string' && wholeExpression.test(value)) return problemsFromIssues(issue.errors[issue.errors.length - 1]!, value, typeNames, path);
      const unionPath = formatDocumentPath(path);
      return problemsFromIssues(issue.errors[0]!, value, typeNames, path).map((problem) =>
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
function stepRuleProblems(input: object, registry: StepTypeRegistry, urlPolicy: OutboundUrlPolicy): DefinitionProblem[] {
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
    problems.push(...inputProblems(step, registry, urlPolicy));
    if (typeof step.if === 'string') problems.push(...expressionProblems(step.if, `steps[${step.index}].if`));
    problems.push(...templateProblems(step.with, `steps[${step.index}].with`));
  }
  problems.push(...cycleProblems(steps));
  return problems;
}

/**
 * The step type's own rules on its inputs as written (required inputs, a literal URL meeting the
 * outbound rules the step applies when it runs, with the same local relaxation, so that publishing
 * refuses exactly what every run would fail on). Host names are resolved only at run time.
 */
function inputProblems(step: LooseStep, registry: StepTypeRegistry, urlPolicy: OutboundUrlPolicy): DefinitionProblem[] {
  const type = typeof step.type === 'string' ? registry.find(step.type) : undefined;
  if (!type?.inputProblems) return [];
  const inputs = step.with !== null && typeof step.with === 'object' && !Array.isArray(step.with) ? (step.with as Record<string, unknown>) : {};
  return type.inputProblems(inputs, `steps[${step.index}].with`, {
    outboundUrlProblem: (url, rules) => {
      const checked = checkOutboundUrl(url, rules, urlPolicy);
      return checked.ok ? undefined : checked.issue;
    },
  });
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
