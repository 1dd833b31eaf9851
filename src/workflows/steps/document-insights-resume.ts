// The second half of the document_insights step: the extraction's terminal state answers the task
// token its execution waits on. Apart from the start (document-insights.ts) so that the delivery
// queue's consumer, which runs the listener, does not bundle the extraction service.
import type { RecordedEventListener, RecordedEventNotice } from '../../events/event-listeners.ts';
import type { ExtractedField, ExtractionOutput, ExtractionStatus, RunError } from '../../extractions/extraction.ts';
import { isTerminal } from '../../extractions/extraction.ts';
import { reviewedValueOf } from '../../extractions/field-corrections.ts';
import { logger } from '../../infrastructure/logger.ts';
import type { TaskCallbacks } from '../task-callbacks.ts';
import type { DocumentInsightsWaits } from './document-insights-waits.ts';

export interface StepResumeDependencies {
  waits: Pick<DocumentInsightsWaits, 'get' | 'forget'>;
  callbacks: TaskCallbacks;
}

/** The error name the run state machine's Catch matches, as a Lambda's StepFailedError would be. */
export const stepFailedErrorName = 'StepFailedError';

/** Step Functions refuses a task output over 256 KB; a larger extraction output fails the step instead. */
export const maximumCallbackOutputBytes = 256 * 1024 - 1024;

export interface TerminalExtraction {
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
export async function resumeWaitingStep(dependencies: StepResumeDependencies, workspaceId: string, extraction: TerminalExtraction): Promise<'resumed' | 'none'> {
  const wait = await dependencies.waits.get(workspaceId, extraction.extractionId);
  if (!wait) return 'none';
  const { extractionId, status } = extraction;
  let outcome: string;
  if (status === 'COMPLETED') {
    const fields = extraction.output?.fields ?? [];
    const output = { extractionId, status, fields, values: valuesByName(fields) };
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

/**
 * The fields by name (`values.total_amount`), beside the list: what a definition reads. Each name maps
 * to its field's `value` whatever its type (a table's list of rows included), or to the reviewer's
 * `correctedValue` when the document was corrected (field-corrections.ts); the first field of a name
 * wins, as the list is in reading order.
 */
export function valuesByName(fields: readonly Pick<ExtractedField, 'name' | 'value' | 'correctedValue' | 'correction'>[]): Record<string, unknown> {
  const values = new Map<string, unknown>();
  for (const field of fields) if (!values.has(field.name)) values.set(field.name, reviewedValueOf(field));
  // fromEntries defines each name as an own property, `__proto__` included.
  return Object.fromEntries(values);
}

function failStep(dependencies: Pick<StepResumeDependencies, 'callbacks'>, taskToken: string, message: string, extraction: TerminalExtraction) {
  const cause = JSON.stringify({ message, output: { extractionId: extraction.extractionId, status: extraction.status } });
  return dependencies.callbacks.fail(taskToken, stepFailedErrorName, cause);
}

/**
 * The listener on extraction terminal events (registered in src/manifest/event-listeners.ts): the
 * event carries the status, the output's fields or the error, exactly as webhooks send them.
 */
export function documentInsightsResumer(dependencies: () => StepResumeDependencies): RecordedEventListener {
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
