import { logger } from '../infrastructure/logger.ts';
import type { EventType } from './event-envelope.ts';

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

/** The recorded events not yet handed off (an event is added to them by its own record, `EventRecords.add`). */
export interface OutboxEntries {
  /** Entries recorded before `recordedBefore` (ISO 8601), oldest first within each part of the store. */
  recordedBefore(recordedBefore: string): AsyncIterable<OutboxEntry & { recordedAt: string }>;
  /** Takes the event out; one already taken out (a racing drain) is no error. */
  remove(eventId: string): Promise<void>;
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
 * after recording it. The record that stores the event puts it in the outbox (`EventRecords.add`; in
 * DynamoDB the sparse gsi6, see aws/event-keys.ts), then the recorder calls `handOff`, which takes it out
 * only after the send succeeded, so an event is in the outbox until it has been handed off at least once.
 * `drain` (a schedule row, every minute) hands off whatever was left.
 */
export class EventOutbox {
  private readonly now: () => number;

  constructor(
    private readonly entries: OutboxEntries,
    private readonly delivery: EventDeliveryHandOff,
    private readonly options: EventOutboxOptions = { graceMs: defaultOutboxGraceMs },
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Sends the hand-off message, then takes the event out of the outbox. Throws when the send fails. */
  async handOff(entry: OutboxEntry): Promise<void> {
    await this.delivery.send({ kind: 'event-recorded', workspaceId: entry.workspaceId, eventId: entry.eventId, eventType: entry.eventType });
    await this.entries.remove(entry.eventId);
  }

  /** Events still waiting for their hand-off, oldest first (older than the grace period). */
  pending(graceMs = this.options.graceMs): AsyncIterable<OutboxEntry & { recordedAt: string }> {
    return this.entries.recordedBefore(new Date(this.now() - graceMs).toISOString());
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
