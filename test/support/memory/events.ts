import type { EventRecordedMessage, EventDeliveryHandOff, OutboxEntries, OutboxEntry } from '../../../src/events/event-outbox.ts';
import type { EventRecords, StoredEvent } from '../../../src/events/event-recorder.ts';
import type { ExpiredEvent, ExpiredEvents } from '../../../src/events/expired-event-purge.ts';

// In-test implementations of the events module's ports (event-recorder.ts, event-outbox.ts,
// expired-event-purge.ts), with the same rules as src/events/aws/dynamodb-event-records.ts: an event is
// stored once and is in the outbox from that write until its hand-off takes it out.

const copy = <T>(value: T): T => structuredClone(value);

export class InMemoryEventRecords implements EventRecords, OutboxEntries, ExpiredEvents {
  readonly events = new Map<string, StoredEvent>();
  /** Event ids still in the outbox. */
  readonly outbox = new Set<string>();

  async add(event: StoredEvent): Promise<boolean> {
    if (this.events.has(event.envelope.eventId)) return false;
    this.events.set(event.envelope.eventId, copy(event));
    this.outbox.add(event.envelope.eventId);
    return true;
  }

  async *recordedBefore(recordedBefore: string): AsyncGenerator<OutboxEntry & { recordedAt: string }> {
    const waiting = [...this.outbox]
      .map((eventId) => this.events.get(eventId)!)
      .filter((event) => event.recordedAt < recordedBefore)
      .sort((a, b) => a.recordedAt.localeCompare(b.recordedAt));
    for (const { workspaceId, envelope, recordedAt } of waiting) yield { workspaceId, eventId: envelope.eventId, eventType: envelope.eventType, recordedAt };
  }

  async remove(eventId: string): Promise<void> {
    this.outbox.delete(eventId);
  }

  async ofWorkspace(workspaceId: string, now: Date): Promise<ExpiredEvent[]> {
    return [...this.events.values()]
      .filter((event) => event.workspaceId === workspaceId && event.expiresAt <= Math.floor(now.getTime() / 1000))
      .map(({ envelope, data }) => ({ eventId: envelope.eventId, ...('objectKey' in data ? { dataObjectKey: data.objectKey } : {}) }));
  }

  async delete(event: ExpiredEvent): Promise<void> {
    this.events.delete(event.eventId);
    this.outbox.delete(event.eventId);
  }
}

/** The hand-offs sent, in order; `failing` makes every send throw (a queue that is down). */
export class RecordingHandOff implements EventDeliveryHandOff {
  readonly sent: EventRecordedMessage[] = [];
  failing = false;

  async send(message: EventRecordedMessage): Promise<void> {
    if (this.failing) throw new Error('The delivery queue is unavailable.');
    this.sent.push(copy(message));
  }
}
