// The three ways a `paperflow` command ends badly, each with its exit code (README, Command line):
// 2 for a command line that cannot be run as written, 1 for everything the API or the network said no to.

import type { ApiErrorDetail, PaperflowApiError } from '../client/api-answers.ts';

export const exitCodes = { ok: 0, failed: 1, usage: 2 } as const;

/** The command line is wrong (a missing argument, a malformed option, no configuration): exit 2. */
export class UsageError extends Error {
  readonly exitCode = exitCodes.usage;
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The API answered with an error (its envelope, or what the edge sent instead): exit 1. The typed client's error, shared with the console. */
export { PaperflowApiError as ApiError, type ApiErrorDetail } from '../client/api-answers.ts';

/** The API could not be reached at all (DNS, refused connection, TLS): exit 1. */
export class ApiUnreachableError extends Error {
  readonly exitCode = exitCodes.failed;
  constructor(message: string) {
    super(message);
    this.name = 'ApiUnreachableError';
  }
}

/** A waited-for extraction or run ended in a state other than COMPLETED: printed, then exit 1. */
export class UnsuccessfulOutcomeError extends Error {
  readonly exitCode = exitCodes.failed;
  constructor(message: string) {
    super(message);
    this.name = 'UnsuccessfulOutcomeError';
  }
}

/**
 * The lines an API error is shown as: code and message, every validation detail the message does not
 * already say (a 422's message names its first few), the request id.
 */
export function apiErrorLines(error: PaperflowApiError): string[] {
  const saidInMessage = (detail: ApiErrorDetail) => error.message.includes(`${detail.field || '(body)'}: ${detail.issue.replace(/\.+$/, '')}`);
  return [
    `${error.code} (HTTP ${error.status}): ${error.message}`,
    ...error.details.filter((detail) => !saidInMessage(detail)).map((detail) => `  ${detail.field}: ${detail.issue}`),
    `Request id: ${error.requestId ?? '(none returned)'}`,
  ];
}
