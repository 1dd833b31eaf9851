import { deterministicIdentifier } from '../infrastructure/identifiers.ts';
import type { StoredStep } from './run-store.ts';

/**
 * The ids of a for_each step's nested runs, by item position: derived from the parent run, the step
 * and its start, so a retried start finds the same run and every reader agrees without a list.
 */
export function nestedRunIdsOf(step: Pick<StoredStep, 'runId' | 'stepId' | 'startedAt' | 'nestedRunCount'>): string[] {
  const count = step.nestedRunCount ?? 0;
  const timeMs = Date.parse(step.startedAt ?? '') || 0;
  return Array.from({ length: count }, (_, index) => deterministicIdentifier('run', `${step.runId}#${step.stepId}#${index}`, timeMs));
}
