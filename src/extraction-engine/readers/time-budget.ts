/** A step that did not finish within its budget. The caller decides whether that skips a page or the document. */
export class TimeBudgetExceededError extends Error {
  constructor(
    readonly step: string,
    readonly budgetMs: number,
  ) {
    super(`${step} did not finish within ${budgetMs} ms`);
    this.name = 'TimeBudgetExceededError';
  }
}

/**
 * Resolves with the work's result, or rejects with TimeBudgetExceededError once the budget is spent.
 * `onTimeout` releases whatever the work holds (a pdf.js document, an OCR worker), so an abandoned
 * step does not keep running in the background.
 */
export async function withinTimeBudget<T>(
  step: string,
  budgetMs: number,
  work: Promise<T>,
  onTimeout?: () => unknown,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // Releasing is best effort: a failure to release must not escape a timer callback (that would
      // crash the process), and the caller learns about the timeout either way.
      try {
        void Promise.resolve(onTimeout?.()).catch(() => undefined);
      } catch {
        // already abandoned; nothing more to release
      }
      reject(new TimeBudgetExceededError(step, budgetMs));
    }, budgetMs);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Milliseconds left until a fixed deadline, never below zero. */
export function remainingMs(deadline: number): number {
  return Math.max(0, deadline - Date.now());
}
