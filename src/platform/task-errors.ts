// How a state machine Task reports failures (statemachines/*.asl.json): transient failures of AWS
// services and networks become TransientProcessingError, which every machine's Retry names; anything
// else keeps its name for the Catch clauses. Shared by the extraction and workflow run machines.

export class TransientProcessingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TransientProcessingError';
  }
}

/** A failure as a state machine's Catch hands it over: `Error` is the name, `Cause` the message. */
export interface CaughtFailure {
  Error?: string;
  Cause?: string;
}

const networkErrorCodes = new Set(['ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);

/**
 * Task handlers pass every error through this: throttling, 5xx answers and network failures of AWS
 * services (and of downstream calls answering DOWNSTREAM_ERROR) become TransientProcessingError, which
 * the state machine retries with backoff. Everything else keeps its name for the Catch clauses.
 */
export function asTaskError(error: unknown): unknown {
  if (!(error instanceof Error) || error instanceof TransientProcessingError) return error;
  const metadata = (error as { $metadata?: { httpStatusCode?: number }; $retryable?: unknown }).$metadata;
  const status = metadata?.httpStatusCode ?? 0;
  const transientAws = (error as { $retryable?: unknown }).$retryable !== undefined || status >= 500 || status === 429 ||
    /Throttl|ProvisionedThroughputExceeded|RequestLimitExceeded|SlowDown|InternalServerError|ServiceUnavailable/.test(error.name);
  const network = networkErrorCodes.has(String((error as NodeJS.ErrnoException).code));
  const downstream = (error as { code?: unknown }).code === 'DOWNSTREAM_ERROR';
  if (transientAws || network || downstream) return new TransientProcessingError(`A service call failed: ${error.name}.`);
  return error;
}

/** Lambda reports a thrown error's message inside a JSON Cause; local runs pass the message itself. */
export function messageOfCause(cause: string | undefined): string {
  if (!cause) return '';
  try {
    const parsed = JSON.parse(cause) as { errorMessage?: unknown };
    if (typeof parsed.errorMessage === 'string') return parsed.errorMessage;
  } catch {
    // not JSON: the message itself
  }
  return cause;
}
