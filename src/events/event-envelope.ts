import { deterministicIdentifier } from '../infrastructure/identifiers.ts';

/** The event types of the spec (Events): three for extractions, two for workflow runs. */
export const eventTypes = [
  'document-insights.extraction.completed',
  'document-insights.extraction.failed',
  'document-insights.extraction.rejected',
  'workflow.run.completed',
  'workflow.run.failed',
] as const;

export type EventType = (typeof eventTypes)[number];

/** The spec's event envelope: what is recorded, listed and (by the webhook fan-out) delivered. */
export interface EventEnvelope<TData = Record<string, unknown>> {
  eventId: string;
  eventType: EventType;
  occurredAt: string;
  apiVersion: 'v1';
  data: TData;
}

/** Events are kept 90 days (DESIGN.md), through the table's TTL attribute. */
export const eventRetentionDays = 90;

/**
 * An event id derived from what the event is about (`seed`, e.g. an extraction id and generation) and
 * when it happened: recording the same occurrence again (a retried task, a sweeper racing the state
 * machine) yields the same id, and the recorder's conditional put keeps one event. The time part of
 * the ULID is `occurredAt`, so ids sort by occurrence like every other identifier.
 */
export function deterministicEventId(seed: string, occurredAt: string): string {
  return deterministicIdentifier('evt', seed, Date.parse(occurredAt));
}
