// How a step says it failed. The run state machine's Catch reads the error name; the run records the
// step FAILED with `message` and, where the step got that far, its `output` (a web_function's last
// answer, a document_insights step's extractionId), and the run fails with WORKFLOW_STEP_FAILED.

export class StepFailedError extends Error {
  constructor(
    message: string,
    /** What the step produced before failing, recorded as the step's output. */
    readonly output?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'StepFailedError';
  }
}
