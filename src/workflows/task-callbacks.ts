// Answers to the task tokens of `.waitForTaskToken` steps: the port. One AWS implementation
// (aws/step-functions-task-callbacks.ts); the embedded stack points the same SDK client at its local
// Step Functions (AWS_ENDPOINT_URL_SFN).

/** `answered`: the execution got it. `gone`: the token was closed or never valid (nothing to resume). */
export type CallbackOutcome = 'answered' | 'gone';

export interface TaskCallbacks {
  succeed(taskToken: string, output: unknown): Promise<CallbackOutcome>;
  fail(taskToken: string, error: string, cause: string): Promise<CallbackOutcome>;
}
