import type { EventEnvelope, EventType } from './event-envelope.ts';

// Domain reactions to recorded events, beside webhook fan-out (docs/events.md, Listeners). A module
// that must act when another records an event (a workflow step waiting for its extraction) registers
// a listener in src/manifest/event-listeners.ts instead of being imported by the recording module, so
// extractions never know workflows. Listeners run on the outbox's hand-off, in the consumer of the
// delivery queue: a crash before they finish brings the message back, as for fan-out.

export interface RecordedEventNotice {
  workspaceId: string;
  envelope: EventEnvelope;
}

export interface RecordedEventListener {
  name: string;
  eventTypes: readonly EventType[];
  /**
   * Called at least once per recorded event of those types (hand-offs are duplicated by design):
   * it must be idempotent per eventId. Throwing brings the hand-off message back to be tried again.
   */
  onEventRecorded(event: RecordedEventNotice): Promise<void>;
}

/** Runs every listener of the event's type; all are tried, then the first failure is thrown. */
export async function notifyEventListeners(listeners: readonly RecordedEventListener[], event: RecordedEventNotice): Promise<number> {
  const interested = listeners.filter((listener) => listener.eventTypes.includes(event.envelope.eventType));
  const outcomes = await Promise.allSettled(interested.map((listener) => listener.onEventRecorded(event)));
  const failure = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failure) throw failure.reason;
  return interested.length;
}
