import { logger } from '../infrastructure/logger.ts';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { queryPages } from '../infrastructure/dynamodb-queries.ts';
import type { EventType } from './event-envelope.ts';
import { eventKey, outboxPartition, outboxShardCount } from './event-keys.ts';

/**
 * The hand-off message: "this event was recorded; fan it out". Duplicates are expected (an inline
 * hand-off and the drain may both send one), so whoever consumes it must be idempotent per eventId.
 */
export interface EventRecordedMessage {
  kind: 'event-recorded';
  workspaceId: string;
  eventId: string;
  eventType: EventType;
}

/** Where recorded events go to be delivered (one AWS implementation: the webhook delivery queue). */
export interface EventDeliveryHandOff {
  send(message: EventRecordedMessage): Promise<void>;
}

export interface OutboxEntry {
  workspaceId: string;
  eventId: string;
  eventType: EventType;
}

export interface DrainReport {
  handedOff: number;
  /** Entries whose hand-off failed (each logged at warn level); the next drain tries again. */
  failed: number;
}

export interface EventOutboxOptions {
  /**
   * The drain leaves entries younger than this to their inline hand-off, which is normally done
   * within milliseconds: only events whose recorder stopped (or whose send failed) are drained.
   */
  graceMs: number;
  now?: () => number;
}

/** Outbox entries are handed off at once; the drain only takes those older than this (30 s). */
export const defaultOutboxGraceMs = 30_000;

/**
 * The outbox guarantee: every recorded event reaches delivery, also when its recorder dies right
 * after recording it. The recorder writes the event with outbox attributes (the sparse gsi6, see
 * event-keys.ts) in the same conditional put, then calls `handOff`; the attributes are cleared only
 * after the send succeeded, so an event is in the outbox until it has been handed off at least once.
 * `drain` (a schedule row, every minute) hands off whatever was left.
 */
export class EventOutbox {
  private readonly now: () => number;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly delivery: EventDeliveryHandOff,
    private readonly options: EventOutboxOptions = { graceMs: defaultOutboxGraceMs },
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Sends the hand-off message, then takes the event out of the outbox. Throws when the send fails. */
  async handOff(entry: OutboxEntry): Promise<void> {
    await this.delivery.send({ kind: 'event-recorded', workspaceId: entry.workspaceId, eventId: entry.eventId, eventType: entry.eventType });
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: eventKey(entry.eventId),
          UpdateExpression: 'REMOVE gsi6pk, gsi6sk',
          ConditionExpression: 'attribute_exists(gsi6pk)',
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error; // already cleared (a racing drain)
    }
  }

  /** Events still waiting for their hand-off, oldest first per shard (older than the grace period). */
  async *pending(graceMs = this.options.graceMs): AsyncGenerator<OutboxEntry & { recordedAt: string }> {
    const before = new Date(this.now() - graceMs).toISOString();
    for (let shard = 0; shard < outboxShardCount; shard += 1) {
      const pages = queryPages(this.client, {
        TableName: this.tableName,
        IndexName: 'gsi6',
        // `<recordedAt>#<eventId>` sorts below `before` exactly when recordedAt is earlier.
        KeyConditionExpression: 'gsi6pk = :shard AND gsi6sk < :before',
        ExpressionAttributeValues: { ':shard': outboxPartition(shard), ':before': before },
      });
      for await (const page of pages) {
        for (const item of page.Items ?? []) {
          yield { workspaceId: item.workspaceId, eventId: item.eventId, eventType: item.eventType, recordedAt: item.recordedAt };
        }
      }
    }
  }

  /** Hands off every entry older than the grace period; one failure does not stop the others. */
  async drain(): Promise<DrainReport> {
    const report: DrainReport = { handedOff: 0, failed: 0 };
    for await (const entry of this.pending()) {
      try {
        await this.handOff(entry);
        report.handedOff += 1;
      } catch (error) {
        report.failed += 1;
        logger.warn('event outbox drain could not hand off an event', { eventId: entry.eventId, error });
      }
    }
    return report;
  }
}
