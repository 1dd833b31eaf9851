import { describe, expect, it } from 'vitest';
import { TimeBudgetExceededError, withinTimeBudget } from '../../../../src/extraction-engine/readers/time-budget.ts';

describe('withinTimeBudget', () => {
  it('returns the result of work that finishes in time', async () => {
    await expect(withinTimeBudget('quick step', 1_000, Promise.resolve(42))).resolves.toBe(42);
  });

  it('rejects once the budget is spent and releases what the work holds', async () => {
    let released = false;

    const outcome = withinTimeBudget('endless step', 20, new Promise(() => undefined), () => {
      released = true;
    });

    await expect(outcome).rejects.toEqual(new TimeBudgetExceededError('endless step', 20));
    expect(released).toBe(true);
  });

  it('still rejects with the timeout when releasing fails', async () => {
    const outcome = withinTimeBudget('endless step', 20, new Promise(() => undefined), () => {
      throw new Error('cannot release');
    });

    await expect(outcome).rejects.toBeInstanceOf(TimeBudgetExceededError);
  });
});
