// What a workflow step type is (DESIGN.md, Workflows): one module in step-types/ and one line in
// step-types/registry.ts. The definition validator, the JSON Schema of definitions, the run engine and
// the state machine's RouteStep Choice all read it from there.

import type { z } from 'zod';
import type { DocumentProblem } from '../platform/operator-documents.ts';
import type { ForEachItems } from './run-store.ts';
import type { StepRunners } from './run-engine.ts';
import type { WorkflowStore } from './workflow-store.ts';

/** The state of the workflow run state machine that runs a step in the RunStep Lambda. */
export const runStepState = 'RunStep';

export interface StepTypeDefinition<Type extends string = string> {
  type: Type;
  /** The schema of the step's `with`: validation on publish, and the definition's JSON Schema. */
  inputs: z.ZodType;
  /**
   * Rules on `with` as written that the schema cannot state (which inputs are required together, a
   * literal URL's outbound rules). Read from the document as written, so that a definition with other
   * problems still hears of these at once.
   */
  inputProblems?: (inputs: Record<string, unknown>, path: string, rules: StepInputRules) => DocumentProblem[];
  /**
   * The state of the workflow run state machine (statemachines/workflow-run.asl.json) that carries the
   * step out: `RunStep` runs `run` below in the RunStep Lambda; another name is a state of its own,
   * which RouteStep's Choice names (a unit test holds the two together).
   */
  state: string;
  /**
   * RunStep types that are pure and quick (no I/O; bounded by the expression limits): the plan runs
   * them itself instead of handing them to RunStep, which saves the round trip (run-engine.ts, plan).
   */
  inline?: boolean;
  /** RunStep types: the step's output from its evaluated `with`; a StepFailedError fails the step. */
  run?: (evaluatedWith: unknown, services: StepRunners) => Promise<unknown>;
  /**
   * Types with a state of their own: what that state needs (a Wait's seconds, a Map's items), evaluated
   * when the plan hands the step out.
   */
  prepare?: (inputs: unknown, planning: StepPlanning) => Promise<StepPreparation>;
}

export interface StepInputRules {
  /** Whether a literal URL passes the outbound rules the step applies when it runs: the problem if not. */
  outboundUrlProblem(url: string, options: { refuseFragment: boolean }): string | undefined;
}

export interface StepPlanning {
  workspaceId: string;
  /** Evaluates a template of the step's `with` on the run's data; `path` is below `steps[i].with`. */
  evaluate(template: unknown, path: string): Promise<unknown>;
  /** The error for a value an expression gave that the step cannot use: the step fails with WORKFLOW_INPUT_INVALID. */
  invalidInput(path: string, problem: string): Error;
  workflows: Pick<WorkflowStore, 'get'>;
  /** for_each: the items an earlier plan evaluated for this step, which a later plan keeps. */
  evaluatedForEach?: ForEachItems;
}

/** What the plan hands the state machine with the step, beside its id, type and state. */
export interface StepPreparation {
  delaySeconds?: number;
  itemIndexes?: number[];
  maxConcurrency?: number;
  /** Stored with the step when it starts: the nested runs' ids derive from it. */
  forEach?: ForEachItems;
}

/** The step types a validator or an engine knows, by name. */
export class StepTypeRegistry {
  private readonly byType: Map<string, StepTypeDefinition>;

  constructor(readonly types: readonly StepTypeDefinition[]) {
    this.byType = new Map(types.map((type) => [type.type, type]));
    if (this.byType.size !== types.length) throw new Error('Two step types have the same name.');
    for (const type of types) {
      if ((type.state === runStepState) !== (type.run !== undefined)) throw new Error(`Step type ${type.type}: a RunStep type has a run, and only it.`);
      if (type.inline && type.state !== runStepState) throw new Error(`Step type ${type.type}: only a RunStep type runs inline.`);
    }
  }

  get names(): string[] {
    return this.types.map((type) => type.type);
  }

  find(type: string): StepTypeDefinition | undefined {
    return this.byType.get(type);
  }

  get(type: string): StepTypeDefinition {
    const found = this.byType.get(type);
    if (!found) throw new Error(`No step type ${type} is registered.`);
    return found;
  }

  /** A registry with more types: a test's fixture type beside the built-in ones. */
  with(...types: StepTypeDefinition[]): StepTypeRegistry {
    return new StepTypeRegistry([...this.types, ...types]);
  }
}
