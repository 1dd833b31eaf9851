// The document_insights step (DESIGN.md, Workflows): a real extraction through the extraction service
// (listed by the extraction API like any other), whose terminal state resumes the waiting execution.
// The step's Lambda starts it and returns; the execution waits on its task token (`.waitForTaskToken`)
// until the extraction's terminal event reaches the listener below (through the events outbox, so a
// crash anywhere on the way is retried), or until the start itself finds it already terminal.
import { z } from 'zod';
import type { RecordedEventListener, RecordedEventNotice } from '../../events/event-listeners.ts';
import type { ExtractionOutput, ExtractionStatus, RunError } from '../../extractions/extraction.ts';
import { isTerminal } from '../../extractions/extraction.ts';
import { maximumLabels } from '../../extractions/extraction-requests.ts';
import type { CreateExtractionRequest, ExtractionService } from '../../extractions/extraction-service.ts';
import { logger } from '../../infrastructure/logger.ts';
import { ValidationError } from '../../platform/errors.ts';
import { StepFailedError } from '../step-failures.ts';
import type { TaskCallbacks } from '../task-callbacks.ts';
import type { DocumentInsightsWaits } from './document-insights-waits.ts';

export interface DocumentInsightsStepStart {
  workspaceId: string;
  runId: string;
  stepId: string;
  /** The step's evaluated `with`: `file` (a file node), `fileId` or `url`; optional `labels`. */
  evaluatedWith: unknown;
  /** The Step Functions task token the execution waits on (`.waitForTaskToken`). */
  taskToken: string;
}

export interface DocumentInsightsDependencies {
  extractions: Pick<ExtractionService, 'createExtraction' | 'getExtraction'>;
  waits: Pick<DocumentInsightsWaits, 'remember' | 'get' | 'forget'>;
  callbacks: TaskCallbacks;
  now?: () => Date;
}

/** The label that ties the extraction to its run, added when the user's labels leave room for it. */
export const workflowRunLabel = 'workflowRunId';

/** The error name the run state machine's Catch matches, as a Lambda's StepFailedError would be. */
export const stepFailedErrorName = 'StepFailedError';

/** Step Functions refuses a task output over 256 KB; a larger extraction output fails the step instead. */
export const maximumCallbackOutputBytes = 256 * 1024 - 1024;

const fileNodeSchema = z.object({ fileId: z.string({ error: 'must be a file id' }).min(1, 'must be a file id') }).loose();

const evaluatedWithSchema = z
  .object({
    file: z.union([fileNodeSchema, z.array(fileNodeSchema)], { error: 'must be a file node {fileId, fileName, mimeType, size} or a list holding one' }).optional(),
    fileId: z.string({ error: 'must be a file id' }).min(1, 'must be a file id').optional(),
    url: z.string({ error: 'must be a URL' }).optional(),
    labels: z.record(z.string(), z.string({ error: 'label values must be strings' }), { error: 'must be an object of strings' }).optional(),
  })
  .loose();

/**
 * Starts a real extraction for the step and remembers the task token. When the extraction reaches a
 * terminal state, the execution is resumed with SendTaskSuccess `{extractionId, status, fields}`, or
 * SendTaskFailure (error `StepFailedError`, cause JSON `{message, output: {extractionId, status}}`).
 * A step whose extraction cannot start (invalid `with`, unknown file, refused URL) throws
 * StepFailedError at once and leaves no token waiting.
 */
export async function startDocumentInsightsStep(
  start: DocumentInsightsStepStart,
  dependencies: DocumentInsightsDependencies,
): Promise<{ extractionId: string }> {
  const resolved = dependencies;
  const request = extractionRequestOf(start.evaluatedWith, start.runId);
  let extractionId: string;
  try {
    extractionId = (await resolved.extractions.createExtraction(start.workspaceId, request)).id;
  } catch (error) {
    if (error instanceof ValidationError) {
      const reasons = error.details.map((detail) => `${detail.field}: ${detail.issue.replace(/\.+$/, '')}`).join('; ');
      throw new StepFailedError(`document_insights could not start an extraction: ${reasons}.`);
    }
    throw error; // a downstream failure: the engine's Retry tries the step again
  }
  await resolved.waits.remember({
    workspaceId: start.workspaceId,
    extractionId,
    runId: start.runId,
    stepId: start.stepId,
    taskToken: start.taskToken,
    createdAt: (resolved.now ?? (() => new Date()))().toISOString(),
  });
  // The extraction may have ended before the wait was written (its event then found nothing to
  // resume): look once more now that it is written. Both may answer; the second gets TaskTimedOut.
  const extraction = await resolved.extractions.getExtraction(start.workspaceId, extractionId);
  if (isTerminal(extraction.status)) {
    await resumeWaitingStep(resolved, start.workspaceId, { extractionId, status: extraction.status, output: extraction.output, error: extraction.error });
  }
  return { extractionId };
}

function extractionRequestOf(evaluatedWith: unknown, runId: string): CreateExtractionRequest {
  const parsed = evaluatedWithSchema.safeParse(evaluatedWith);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${['with', ...issue.path.map(String)].join('.')} ${issue.message}`);
    throw new StepFailedError(`document_insights input is invalid: ${problems.join('; ')}.`);
  }
  const { file, fileId, url, labels } = parsed.data;
  const sources = [file, fileId, url].filter((source) => source !== undefined).length;
  if (sources !== 1) {
    throw new StepFailedError(`document_insights input is invalid: give exactly one of with.file, with.fileId and with.url (got ${sources}).`);
  }
  const document: CreateExtractionRequest['document'] = url !== undefined ? { url } : { fileId: fileId ?? singleFileOf(file!) };
  return { document, labels: withRunLabel(labels ?? {}, runId) };
}

function singleFileOf(file: z.output<typeof fileNodeSchema> | z.output<typeof fileNodeSchema>[]): string {
  if (!Array.isArray(file)) return file.fileId;
  // A multipart part is always a list; one step extracts one document (for_each runs several).
  if (file.length !== 1) {
    throw new StepFailedError(`document_insights input is invalid: with.file holds ${file.length} files; a step extracts one (use for_each for several).`);
  }
  return file[0]!.fileId;
}

/** The user's labels come first: the run label is added only when it is free and within the limit. */
function withRunLabel(labels: Record<string, string>, runId: string): Record<string, string> {
  if (Object.hasOwn(labels, workflowRunLabel) || Object.keys(labels).length >= maximumLabels) return labels;
  return { ...labels, [workflowRunLabel]: runId };
}

interface TerminalExtraction {
  extractionId: string;
  status: ExtractionStatus;
  output?: Pick<ExtractionOutput, 'fields'>;
  error?: RunError;
}

/**
 * Answers the task token waiting for this extraction, if any, then forgets it. Answering first and
 * forgetting after means a crash in between answers twice, which Step Functions refuses harmlessly
 * (TaskTimedOut, dropped by the callbacks); forgetting first could lose the only answer.
 */
export async function resumeWaitingStep(dependencies: Pick<DocumentInsightsDependencies, 'waits' | 'callbacks'>, workspaceId: string, extraction: TerminalExtraction): Promise<'resumed' | 'none'> {
  const wait = await dependencies.waits.get(workspaceId, extraction.extractionId);
  if (!wait) return 'none';
  const { extractionId, status } = extraction;
  let outcome: string;
  if (status === 'COMPLETED') {
    const output = { extractionId, status, fields: extraction.output?.fields ?? [] };
    const bytes = Buffer.byteLength(JSON.stringify(output));
    outcome =
      bytes <= maximumCallbackOutputBytes
        ? await dependencies.callbacks.succeed(wait.taskToken, output)
        : await failStep(dependencies, wait.taskToken, `Extraction ${extractionId} completed, but its fields (${bytes} bytes) exceed what a step output can carry (256 KB).`, extraction);
  } else {
    const reason = extraction.error ? `${extraction.error.code}: ${extraction.error.message}` : 'no reason recorded';
    outcome = await failStep(dependencies, wait.taskToken, `Extraction ${extractionId} ended ${status} (${reason}).`, extraction);
  }
  await dependencies.waits.forget(workspaceId, extractionId);
  logger.info('document_insights step resumed', { runId: wait.runId, stepId: wait.stepId, extractionId, status, outcome });
  return 'resumed';
}

function failStep(dependencies: Pick<DocumentInsightsDependencies, 'callbacks'>, taskToken: string, message: string, extraction: TerminalExtraction) {
  const cause = JSON.stringify({ message, output: { extractionId: extraction.extractionId, status: extraction.status } });
  return dependencies.callbacks.fail(taskToken, stepFailedErrorName, cause);
}

/**
 * The listener on extraction terminal events (registered in src/manifest/event-listeners.ts): the
 * event carries the status, the output's fields or the error, exactly as webhooks send them.
 */
export function documentInsightsResumer(dependencies: () => Pick<DocumentInsightsDependencies, 'waits' | 'callbacks'>): RecordedEventListener {
  return {
    name: 'resumeDocumentInsightsSteps',
    eventTypes: ['document-insights.extraction.completed', 'document-insights.extraction.failed', 'document-insights.extraction.rejected'],
    onEventRecorded: async (event: RecordedEventNotice) => {
      const data = event.envelope.data as { extractionId?: string; status?: ExtractionStatus; output?: ExtractionOutput; error?: RunError };
      if (!data.extractionId || !data.status || !isTerminal(data.status)) {
        // No retry can fix the event's content; a step waiting on it ends by the run's own timeout.
        logger.error('extraction event names no terminal extraction; no step resumed', { eventId: event.envelope.eventId });
        return;
      }
      await resumeWaitingStep(dependencies(), event.workspaceId, { extractionId: data.extractionId, status: data.status, output: data.output, error: data.error });
    },
  };
}
