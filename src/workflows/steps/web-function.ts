// CONTRACT (issue 12): implemented on the workflow-steps branch; this file only fixes the signature the
// run engine calls.
import type { OutboundUrlPolicy } from '../../outbound/outbound-settings.ts';
import type { HostResolver } from '../../outbound/outbound-fetch.ts';

export interface WebFunctionOutput {
  status: number;
  headers: Record<string, string>;
  /** Parsed when the answer is JSON, else the text. */
  body: unknown;
}

export interface WebFunctionDependencies {
  policy: OutboundUrlPolicy;
  resolveHost?: HostResolver;
}

/**
 * Calls the step's evaluated `with` ({url, method, headers, body, timeoutSeconds, retries}). Resolves
 * with the 2xx answer; throws StepFailedError (with the last answer as output) otherwise.
 */
export async function callWebFunction(evaluatedWith: unknown, dependencies: WebFunctionDependencies): Promise<WebFunctionOutput> {
  void evaluatedWith;
  void dependencies;
  throw new Error('web_function is not built yet (issue 12, workflow-steps branch).');
}
