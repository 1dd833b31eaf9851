import { deterministicEventId, type EventEnvelope, type EventType } from '../events/event-envelope.ts';
import type { ExtractionOutput, ExtractionRecord, ExtractionStatus } from './extraction.ts';

// The extraction events' payloads; recording, keys, the outbox and listing are src/events/.

export type ExtractionEventType = Extract<EventType, `document-insights.extraction.${string}`>;

const eventTypeByStatus: Partial<Record<ExtractionStatus, ExtractionEventType>> = {
  COMPLETED: 'document-insights.extraction.completed',
  FAILED: 'document-insights.extraction.failed',
  REJECTED: 'document-insights.extraction.rejected',
};

/**
 * One event per terminal state of one generation: its id is derived from the extraction id and the
 * generation (time part: when the terminal state was reached), so recording it again after a retry,
 * or by the sweeper racing the state machine, writes the same event and the conditional put keeps one.
 */
export function extractionEventId(record: Pick<ExtractionRecord, 'id' | 'generation' | 'completedAt'>): string {
  return deterministicEventId(`${record.id}#${record.generation}`, record.completedAt!);
}

/** The spec's extraction event: `extractionId` in place of `id`, `output` or `error` by status. */
export function extractionEventOf(record: ExtractionRecord, output: ExtractionOutput | undefined): EventEnvelope {
  const eventType = eventTypeByStatus[record.status];
  if (!eventType || !record.completedAt) throw new Error(`Extraction ${record.id} is not terminal (${record.status}).`);
  const { fileId, fileName, mimeType, size, pageCount } = record.document;
  return {
    eventId: extractionEventId(record),
    eventType,
    occurredAt: record.completedAt,
    apiVersion: 'v1',
    data: {
      extractionId: record.id,
      status: record.status,
      outputAvailable: record.outputAvailable,
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
      completedAt: record.completedAt,
      labels: record.labels,
      document: {
        ...(fileId ? { fileId } : {}),
        ...(fileName ? { fileName } : {}),
        ...(mimeType ? { mimeType } : {}),
        ...(size !== undefined ? { size } : {}),
        pageCount: pageCount ?? null,
      },
      ...(record.status === 'COMPLETED' && output ? { output } : {}),
      ...(record.status !== 'COMPLETED' && record.error ? { error: record.error } : {}),
    },
  };
}
