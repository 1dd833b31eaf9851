import { createHash } from 'node:crypto';

/*
 * Key layout of events in the single records table (docs/events.md):
 *
 * Event            pk EVENT#<evt_id>                 sk EVENT
 *   gsi1  WS#<ws>#EVENTS          <occurredAt>#<evt_id>     the workspace's events by occurredAt (GET /events)
 *   gsi6  EVT#OUTBOX#<shard>      <recordedAt>#<evt_id>     sparse: recorded, not yet handed to delivery
 *
 * gsi6 is the sparse index the extraction sweeper also reads (EXT#ATTENTION#<shard>); partitions
 * never overlap, and an item leaves it by losing its gsi6 attributes.
 */

export const eventSortKey = 'EVENT';
export const outboxShardCount = 4;

export const eventKey = (eventId: string) => ({ pk: `EVENT#${eventId}`, sk: eventSortKey });
export const workspaceEventsPartition = (workspaceId: string) => `WS#${workspaceId}#EVENTS`;
export const outboxPartition = (shard: number) => `EVT#OUTBOX#${shard}`;

export function outboxShardOf(eventId: string): number {
  return createHash('sha256').update(eventId).digest()[0]! % outboxShardCount;
}

/** The outbox attributes an event item carries until its hand-off succeeded. */
export function outboxAttributesOf(eventId: string, recordedAt: string): { gsi6pk: string; gsi6sk: string } {
  return { gsi6pk: outboxPartition(outboxShardOf(eventId)), gsi6sk: `${recordedAt}#${eventId}` };
}
