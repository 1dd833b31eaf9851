import type { WorkflowStep } from '../api-types.ts';

export interface PlacedStep {
  step: WorkflowStep;
  /** Column: the longest chain of dependencies before the step. */
  column: number;
  /** Row within its column, in the definition's order. */
  row: number;
}

/**
 * Lays the run's steps out as a DAG read left to right: each step one column after the last step it
 * depends on. Unknown ids in dependsOn are ignored; the definition was validated as acyclic when it
 * was published, and a cycle here would only stop growing at the step count.
 */
export function layOutSteps(steps: readonly WorkflowStep[]): PlacedStep[] {
  const byId = new Map(steps.map((step) => [step.id, step]));
  const columns = new Map<string, number>();
  const columnOf = (step: WorkflowStep, depth: number): number => {
    const known = columns.get(step.id);
    if (known !== undefined) return known;
    if (depth > steps.length) return 0;
    const needed = (step.dependsOn ?? []).map((id) => byId.get(id)).filter((found): found is WorkflowStep => found !== undefined);
    const column = needed.length === 0 ? 0 : 1 + Math.max(...needed.map((dependency) => columnOf(dependency, depth + 1)));
    columns.set(step.id, column);
    return column;
  };
  const rows = new Map<number, number>();
  return steps.map((step) => {
    const column = columnOf(step, 0);
    const row = rows.get(column) ?? 0;
    rows.set(column, row + 1);
    return { step, column, row };
  });
}
