import { describe, expect, it } from 'vitest';
import { layOutSteps } from '../../../src/console/views/step-graph.ts';
import type { WorkflowStep } from '../../../src/console/api-types.ts';

const step = (id: string, dependsOn: string[] = []): WorkflowStep => ({ id, name: id, type: 'transform', status: 'COMPLETED', dependsOn });

describe('layOutSteps', () => {
  it('puts each step one column after the last step it depends on, rows in definition order', () => {
    const placed = layOutSteps([step('a'), step('b'), step('join', ['a', 'b']), step('after', ['join']), step('late', ['a', 'after'])]);

    expect(placed.map(({ step: placedStep, column, row }) => [placedStep.id, column, row])).toEqual([
      ['a', 0, 0],
      ['b', 0, 1],
      ['join', 1, 0],
      ['after', 2, 0],
      ['late', 3, 0],
    ]);
  });

  it('ignores dependencies on unknown steps and stops on a cycle instead of looping', () => {
    const placed = layOutSteps([step('a', ['missing']), step('x', ['y']), step('y', ['x'])]);

    expect(placed.map(({ column }) => column)).toHaveLength(3);
    expect(placed[0]!.column).toBe(0);
  });
});
