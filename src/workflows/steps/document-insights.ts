// CONTRACT (issue 12): implemented on the workflow-steps branch; this file only fixes the signature the
// run engine calls.

export interface DocumentInsightsStepStart {
  workspaceId: string;
  runId: string;
  stepId: string;
  /** The step's evaluated `with`: `file` (a file node), `fileId` or `url`; optional `labels`. */
  evaluatedWith: unknown;
  /** The Step Functions task token the execution waits on (`.waitForTaskToken`). */
  taskToken: string;
}

/**
 * Starts a real extraction for the step and remembers the task token. When the extraction reaches a
 * terminal state, the execution is resumed with SendTaskSuccess `{extractionId, status, fields}`, or
 * SendTaskFailure (error `StepFailedError`, cause JSON `{message, output: {extractionId, status}}`).
 */
export async function startDocumentInsightsStep(start: DocumentInsightsStepStart): Promise<{ extractionId: string }> {
  void start;
  throw new Error('document_insights is not built yet (issue 12, workflow-steps branch).');
}
