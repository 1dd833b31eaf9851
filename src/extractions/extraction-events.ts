import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { deterministicIdentifier } from '../infrastructure/identifiers.ts';
import { asDynamoMap } from './caller-keyed-maps.ts';
import type { ExtractionOutput, ExtractionRecord, ExtractionStatus } from './extraction.ts';

export type ExtractionEventType =
  | 'document-insights.extraction.completed'
  | 'document-insights.extraction.failed'
  | 'document-insights.extraction.rejected';

/** The spec's event envelope. */
export interface EventEnvelope<TData = Record<string, unknown>> {
  eventId: string;
  eventType: string;
  occurredAt: string;
  apiVersion: 'v1';
  data: TData;
}

const eventTypeByStatus: Partial<Record<ExtractionStatus, ExtractionEventType>> = {
  COMPLETED: 'document-insights.extraction.completed',
  FAILED: 'document-insights.extraction.failed',
  REJECTED: 'document-insights.extraction.rejected',
};

/** Events are kept 90 days (DESIGN.md), through the table's TTL attribute. */
export const eventRetentionDays = 90;

/**
 * One event per terminal state of one generation: its id is derived from the extraction id and the
 * generation (time part: when the terminal state was reached), so recording it again after a retry,
 * or by the sweeper racing the state machine, writes the same event and the conditional put keeps one.
 */
export function extractionEventId(record: Pick<ExtractionRecord, 'id' | 'generation' | 'completedAt'>): string {
  return deterministicIdentifier('evt', `${record.id}#${record.generation}`, Date.parse(record.completedAt!));
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

/** An event whose `data` would not fit a DynamoDB item (400 KB) keeps it in S3 instead. */
export const inlineEventDataLimitBytes = 300 * 1024;

export interface EventPayloadObjects {
  put(objectKey: string, body: string): Promise<void>;
}

/**
 * Durable, idempotent recording of domain events in the records table, where webhook delivery picks
 * them up. Layout: pk EVENT#<eventId> / sk EVENT, listed per workspace on gsi1
 * (WS#<ws>#EVENTS, occurredAt#eventId), expiring through `expiresAt`. When `data` is too large for an
 * item (an output over ~300 KB), the item carries `dataObjectKey` (the files bucket) instead of `data`.
 */
export class EventRecorder {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly payloads?: EventPayloadObjects,
    private readonly inlineLimitBytes = inlineEventDataLimitBytes,
  ) {}

  /** Returns false when the event was already recorded (a retry). */
  async record(workspaceId: string, event: EventEnvelope): Promise<boolean> {
    const expiresAt = Math.floor(Date.parse(event.occurredAt) / 1000) + eventRetentionDays * 24 * 3600;
    const data = JSON.stringify(event.data);
    let stored: Record<string, unknown> = { ...event, data: asDynamoMap(event.data) };
    if (Buffer.byteLength(data) > this.inlineLimitBytes) {
      if (!this.payloads) throw new Error(`Event ${event.eventId} is too large for the table and no payload store is configured.`);
      const dataObjectKey = `workspaces/${workspaceId}/events/${event.eventId}.json`;
      await this.payloads.put(dataObjectKey, data);
      const { data: _data, ...envelope } = event;
      stored = { ...envelope, dataObjectKey };
    }
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            pk: `EVENT#${event.eventId}`,
            sk: 'EVENT',
            workspaceId,
            ...stored,
            gsi1pk: `WS#${workspaceId}#EVENTS`,
            gsi1sk: `${event.occurredAt}#${event.eventId}`,
            expiresAt,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}
