import { logger } from '../infrastructure/logger.ts';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { filesBucket } from '../infrastructure/resource-definitions.ts';
import { eventRetentionDays, type EventEnvelope } from './event-envelope.ts';
import { eventKey, outboxAttributesOf, workspaceEventsPartition } from './event-keys.ts';
import type { EventOutbox } from './event-outbox.ts';

/** An event whose `data` would not fit a DynamoDB item (400 KB) keeps it in S3 instead. */
export const inlineEventDataLimitBytes = 300 * 1024;

export interface EventPayloadObjects {
  put(objectKey: string, body: string): Promise<void>;
}

export const eventPayloadObjectKey = (workspaceId: string, eventId: string) => `${filesBucket.eventPayloadPrefix}${workspaceId}/${eventId}.json`;

/**
 * Durable, idempotent recording of domain events in the records table (key layout: event-keys.ts),
 * each handed to delivery through the outbox. `data` is stored as its JSON text (`dataJson`); when
 * it is too large for an item (an output over ~300 KB), the item carries `dataObjectKey` (the files
 * bucket) instead.
 */
export class EventRecorder {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly outbox: Pick<EventOutbox, 'handOff'>,
    private readonly payloads?: EventPayloadObjects,
    private readonly inlineLimitBytes = inlineEventDataLimitBytes,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Records the event and hands it to delivery. Returns false when it was already recorded (a retry):
   * its hand-off is then the first recorder's, or the drain's. A failed hand-off is not the caller's
   * failure: the event is recorded and stays in the outbox, which the drain empties.
   */
  async record(workspaceId: string, event: EventEnvelope): Promise<boolean> {
    const expiresAt = Math.floor(Date.parse(event.occurredAt) / 1000) + eventRetentionDays * 24 * 3600;
    const data = JSON.stringify(event.data);
    // `data` is kept as the JSON text that is sent, not as a DynamoDB map: a map cannot hold every
    // JSON value (numbers beyond DynamoDB's 38 digits or 1e-130..1e126, such as a run input's 1e-200),
    // and the text is byte for byte the payload GET /events/{id} and every delivery show.
    const { data: _data, ...envelopeWithoutData } = event;
    let stored: Record<string, unknown> = { ...envelopeWithoutData, dataJson: data };
    if (Buffer.byteLength(data) > this.inlineLimitBytes) {
      if (!this.payloads) throw new Error(`Event ${event.eventId} is too large for the table and no payload store is configured.`);
      const dataObjectKey = eventPayloadObjectKey(workspaceId, event.eventId);
      await this.payloads.put(dataObjectKey, data);
      stored = { ...envelopeWithoutData, dataObjectKey };
    }
    const recordedAt = this.now().toISOString();
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...eventKey(event.eventId),
            workspaceId,
            ...stored,
            recordedAt,
            gsi1pk: workspaceEventsPartition(workspaceId),
            gsi1sk: `${event.occurredAt}#${event.eventId}`,
            // In the outbox from the first write on: a recorder that stops right after this put
            // leaves the event to the drain, never undelivered.
            ...outboxAttributesOf(event.eventId, recordedAt),
            expiresAt,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
    try {
      await this.outbox.handOff({ workspaceId, eventId: event.eventId, eventType: event.eventType });
    } catch (error) {
      logger.warn('event recorded; its hand-off failed and is left to the outbox drain', { eventId: event.eventId, error });
    }
    return true;
  }
}
