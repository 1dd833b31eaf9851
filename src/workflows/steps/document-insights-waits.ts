// Which workflow step waits for which extraction: the port (aws/dynamodb-document-insights-waits.ts on the
// stack). A wait is remembered after the extraction was accepted and forgotten once its token was
// answered; a start that runs again for the same step waits on the extraction it started before.

export interface DocumentInsightsWait {
  workspaceId: string;
  extractionId: string;
  runId: string;
  stepId: string;
  taskToken: string;
  createdAt: string;
}

/** Which extraction a step started. */
export type StepExtraction = Pick<DocumentInsightsWait, 'workspaceId' | 'runId' | 'stepId' | 'extractionId' | 'createdAt'>;

/** Which step waits for which extraction, with the token it waits on; and which extraction each step started. */
export interface DocumentInsightsWaits {
  remember(wait: DocumentInsightsWait): Promise<void>;
  get(workspaceId: string, extractionId: string): Promise<DocumentInsightsWait | undefined>;
  /** Kept as long as a wait could be: a run's step starts within its run's lifetime. */
  rememberStepExtraction(started: StepExtraction): Promise<void>;
  /** The extraction this step started before, if it did. */
  extractionOfStep(workspaceId: string, runId: string, stepId: string): Promise<string | undefined>;
  /** Once the token was answered. */
  forget(workspaceId: string, extractionId: string): Promise<void>;
}
