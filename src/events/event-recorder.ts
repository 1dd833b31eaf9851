import { logger } from '../infrastructure/logger.ts';
import { filesBucket } from '../infrastructure/resource-definitions.ts';
import { eventRetentionDays, type EventEnvelope } from './event-envelope.ts';
import type { EventOutbox } from './event-outbox.ts';

/** An event whose `data` would not fit a DynamoDB item (400 KB) keeps it in S3 instead. */
export const inlineEventDataLimitBytes = 300 * 1024;

export interface EventPayloadObjects {
  put(objectKey: string, body: string): Promise<void>;
}

/** An event as it is stored: its envelope with `data` as its JSON text, or where that text was put instead. */
export interface StoredEvent {
  workspaceId: string;
  envelope: Omit<EventEnvelope, 'data'>;
  data: { json: string } | { objectKey: string };
  recordedAt: string;
  /** Unix seconds: `occurredAt` + 90 days (the table's TTL attribute). */
  expiresAt: number;
}

/** Where events are recorded. */
export interface EventRecords {
  /**
   * Stores the event once, in the outbox from this very write on (so a recorder that stops right
   * after it leaves the event to the drain, never undelivered); false when it was already recorded.
   */
  add(event: StoredEvent): Promise<boolean>;
}

export const eventPayloadObjectKey = (workspaceId: string, eventId: string) => `${filesBucket.eventPayloadPrefix}${workspaceId}/${eventId}.json`;

/**
 * Durable, idempotent recording of domain events (`EventRecords`), each handed to delivery through the
 * outbox. `data` is stored as its JSON text; when it is too large for a table item (an output over
 * ~300 KB), it goes to the files bucket and the record names its object instead.
 */
export class EventRecorder {
  constructor(
    private readonly records: EventRecords,
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
    const { data: _data, ...envelope } = event;
    let stored: StoredEvent['data'] = { json: data };
    if (Buffer.byteLength(data) > this.inlineLimitBytes) {
      if (!this.payloads) throw new Error(`Event ${event.eventId} is too large for the table and no payload store is configured.`);
      const objectKey = eventPayloadObjectKey(workspaceId, event.eventId);
      await this.payloads.put(objectKey, data);
      stored = { objectKey };
    }
    if (!(await this.records.add({ workspaceId, envelope, data: stored, recordedAt: this.now().toISOString(), expiresAt }))) return false;
    try {
      await this.outbox.handOff({ workspaceId, eventId: event.eventId, eventType: event.eventType });
    } catch (error) {
      logger.warn('event recorded; its hand-off failed and is left to the outbox drain', { eventId: event.eventId, error });
    }
    return true;
  }
}
