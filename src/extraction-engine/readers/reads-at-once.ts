import { TimeBudgetExceededError } from './time-budget.ts';

// After a page is read whole, its second looks read small parts of it again: the deciding lines, the
// head band at two sizes, the lines the page reading missed, the lines of a total that does not add
// up. Each part is read by one worker, so read one after another they left the pool's other worker
// idle (a receipt is read whole on one worker). The parts do not depend on each other: each is cut
// from the page raster where the first reading placed it, and the readings are merged only once all
// are in. So they are handed to the pool at once (it queues them on its workers in the order given),
// and they read exactly what they read one by one, in about half the wall time on two workers.

/**
 * Runs `reads` at once and returns their results in the order given. A read that ran out of the page's
 * budget gives undefined: the reads done in time still count, as they did when run one after another.
 * Any other failure is thrown, once every read has settled (none is left running unseen).
 */
export async function readAtOnce<T>(reads: readonly (() => Promise<T>)[]): Promise<(T | undefined)[]> {
  const settled = await Promise.allSettled(reads.map((read) => read()));
  const failure = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected' && !(result.reason instanceof TimeBudgetExceededError));
  if (failure) throw failure.reason;
  return settled.map((result) => (result.status === 'fulfilled' ? result.value : undefined));
}
