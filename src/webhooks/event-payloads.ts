import type { EventEnvelope } from '../events/event-envelope.ts';

/** A recorded event: its workspace and the envelope a delivery sends. */
export interface RecordedEvent {
  workspaceId: string;
  envelope: EventEnvelope;
}

/** Where deliveries read the event they send; another workspace's event answers as a missing one. */
export interface EventPayloads {
  load(workspaceId: string, eventId: string): Promise<RecordedEvent | undefined>;
}

/** The one reader of recorded events (src/events/event-lister.ts), as deliveries need it. */
export interface RecordedEventReader {
  get(workspaceId: string, eventId: string): Promise<EventEnvelope | undefined>;
}

/** The envelope's fields in the spec's order, so every attempt sends the same bytes for the same event. */
export function envelopeBody(envelope: EventEnvelope): string {
  const { eventId, eventType, occurredAt, apiVersion, data } = envelope;
  return JSON.stringify({ eventId, eventType, occurredAt, apiVersion, data });
}

/**
 * Deliveries read events through the events module's `EventLister.get` (the item, and the data from
 * the files bucket when it was too large for the item): one reader of the event record, so what a
 * delivery sends is exactly what `GET /events/{id}` answers.
 */
export class RecordedEventPayloads implements EventPayloads {
  private readonly remembered = new Map<string, Promise<EventEnvelope | undefined>>();

  /**
   * `rememberForOneInvocation`: a queue consumer's invocation reads each event once, however many of
   * its records deliver it (a fan-out's 25 deliveries arrive in batches of ten). Events are immutable,
   * so only a missing one is asked again (it may be a read that came too early).
   */
  constructor(
    private readonly events: RecordedEventReader,
    private readonly options: { rememberForOneInvocation?: boolean } = {},
  ) {}

  async load(workspaceId: string, eventId: string): Promise<RecordedEvent | undefined> {
    const envelope = await this.envelope(workspaceId, eventId);
    return envelope ? { workspaceId, envelope } : undefined;
  }

  private envelope(workspaceId: string, eventId: string): Promise<EventEnvelope | undefined> {
    if (!this.options.rememberForOneInvocation) return this.events.get(workspaceId, eventId);
    const id = `${workspaceId}/${eventId}`;
    let envelope = this.remembered.get(id);
    if (!envelope) {
      envelope = this.events.get(workspaceId, eventId);
      this.remembered.set(id, envelope);
      envelope.then(
        (found) => found ?? this.remembered.delete(id),
        () => this.remembered.delete(id),
      );
    }
    return envelope;
  }
}
