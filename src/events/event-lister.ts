import type { EventEnvelope, EventType } from './event-envelope.ts';

export interface EventListQuery {
  page: number;
  size: number;
  /** Normalised ISO 8601 (toISOString), inclusive bounds on occurredAt. */
  from?: string;
  to?: string;
  sort: 'asc' | 'desc';
  /** Only these types (GET /events shows the types the workspace subscribes to); omitted: all. */
  eventTypes?: readonly EventType[];
}

/** A listed event: the envelope without `data` (GET /events/{id} returns the payload). */
export type EventSummary = Omit<EventEnvelope, 'data'>;

export interface EventListResult {
  events: EventSummary[];
  totalItems: number;
}

/**
 * A workspace's recorded events, by occurredAt, with exact totals (GET /events), and one event with its
 * data (GET /events/{id}, and what every delivery sends). An expired event (past its `expiresAt`) is
 * never listed or answered, whether or not it was removed yet; another workspace's answers as missing.
 */
export interface EventLister {
  list(workspaceId: string, query: EventListQuery): Promise<EventListResult>;
  /** The recorded envelope with its `data`. */
  get(workspaceId: string, eventId: string): Promise<EventEnvelope | undefined>;
}
