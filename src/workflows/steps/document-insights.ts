// The document_insights step (DESIGN.md, Workflows): a real extraction through the extraction service
// (listed by the extraction API like any other), whose terminal state resumes the waiting execution.
// The step's Lambda starts it and returns; the execution waits on its task token (`.waitForTaskToken`)
// until the extraction's terminal event reaches its listener (document-insights-resume.ts), through
// the events outbox so that a crash anywhere on the way is retried, or until the start itself finds
// the extraction already terminal.
import * as z from 'zod';
import { isTerminal } from '../../extractions/extraction.ts';
import { maximumLabels } from '../../extractions/extraction-requests.ts';
import type { CreateExtractionRequest, ExtractionService } from '../../extractions/extraction-service.ts';
import { ValidationError } from '../../platform/errors.ts';
import { StepFailedError } from '../step-failures.ts';
import type { DocumentInsightsWaits } from './document-insights-waits.ts';
import { resumeWaitingStep, type StepResumeDependencies } from './document-insights-resume.ts';

export interface DocumentInsightsStepStart {
  workspaceId: string;
  runId: string;
  stepId: string;
  /** The step's evaluated `with`: `file` (a file node), `fileId` or `url`; optional `labels`. */
  evaluatedWith: unknown;
  /** The Step Functions task token the execution waits on (`.waitForTaskToken`). */
  taskToken: string;
  /** The run's redrive this start belongs to (absent for its first execution): a redrive extracts anew. */
  redriveCount?: number;
}

export interface DocumentInsightsDependencies extends StepResumeDependencies {
  extractions: Pick<ExtractionService, 'createExtraction' | 'getExtraction'>;
  waits: Pick<DocumentInsightsWaits, 'remember' | 'get' | 'forget' | 'rememberStepExtraction' | 'extractionOfStep'>;
  now?: () => Date;
}

/** The label that ties the extraction to its run, added when the user's labels leave room for it. */
export const workflowRunLabel = 'workflowRunId';

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
 * terminal state, the execution is resumed with SendTaskSuccess `{extractionId, status, fields, values}`, or
 * SendTaskFailure (error `StepFailedError`, cause JSON `{message, output: {extractionId, status}}`).
 * A step whose extraction cannot start (invalid `with`, unknown file, refused URL) throws
 * StepFailedError at once and leaves no token waiting.
 */
export async function startDocumentInsightsStep(
  start: DocumentInsightsStepStart,
  dependencies: DocumentInsightsDependencies,
): Promise<{ extractionId: string }> {
  const request = extractionRequestOf(start.evaluatedWith, start.runId);
  const createdAt = (dependencies.now ?? (() => new Date()))().toISOString();
  // A start run again for the same step (a retried Task, an execution run again from its input)
  // waits on the extraction the step already started: one extraction, one event.
  // A redrive of the run starts a new extraction: the step's last one ended in a failure.
  const stepAttempt = start.redriveCount ? `${start.stepId}#r${start.redriveCount}` : start.stepId;
  let extractionId = await dependencies.waits.extractionOfStep(start.workspaceId, start.runId, stepAttempt);
  if (extractionId === undefined) {
    try {
      extractionId = (await dependencies.extractions.createExtraction(start.workspaceId, request)).id;
    } catch (error) {
      if (error instanceof ValidationError) {
        const reasons = error.details.map((detail) => `${detail.field}: ${detail.issue.replace(/\.+$/, '')}`).join('; ');
        throw new StepFailedError(`document_insights could not start an extraction: ${reasons}.`);
      }
      throw error; // a downstream failure: the engine's Retry tries the step again
    }
    await dependencies.waits.rememberStepExtraction({ workspaceId: start.workspaceId, runId: start.runId, stepId: stepAttempt, extractionId, createdAt });
  }
  // This attempt's token is the one waited on from now on; an earlier attempt's is closed.
  await dependencies.waits.remember({
    workspaceId: start.workspaceId,
    extractionId,
    runId: start.runId,
    stepId: start.stepId,
    taskToken: start.taskToken,
    createdAt,
  });
  // The extraction may have ended before the wait was written (its event then found nothing to
  // resume): look once more now that it is written. Both may answer; the second gets TaskTimedOut.
  const extraction = await dependencies.extractions.getExtraction(start.workspaceId, extractionId);
  if (isTerminal(extraction.status)) {
    await resumeWaitingStep(dependencies, start.workspaceId, { extractionId, status: extraction.status, output: extraction.output, error: extraction.error });
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

