// The pauses between web_function attempts, apart from the step itself: the configuration reads the
// first pause from the environment in every function, and must not bundle the step's zod schemas and
// outbound client to do it.

/** Short and growing, so that a briefly overloaded endpoint gets a moment without the step stalling. */
export function defaultRetryDelayMs(attempt: number, firstDelayMs = 500): number {
  return Math.min(firstDelayMs * 2 ** (attempt - 1), 8 * firstDelayMs);
}

/**
 * The first pause as PAPERFLOW_WEB_FUNCTION_RETRY_DELAY_MS gives it (DESIGN.md, Time in tests: tests
 * compress it); 500 ms otherwise, and never more, so the Lambda timeout sized from the default still holds.
 */
export function webFunctionFirstRetryDelayMsFrom(raw: string | undefined): number {
  const configured = Number(raw);
  return Number.isFinite(configured) && configured >= 0 && configured <= 500 ? configured : 500;
}
