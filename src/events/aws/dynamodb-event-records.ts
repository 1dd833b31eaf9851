import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { queryPages } from '../../infrastructure/dynamodb-queries.ts';
import { eventRetentionDays, eventTypes } from '../event-envelope.ts';
import type { OutboxEntries, OutboxEntry } from '../event-outbox.ts';
import type { EventRecords, StoredEvent } from '../event-recorder.ts';
import type { ExpiredEvent, ExpiredEvents } from '../expired-event-purge.ts';
import { eventKey, outboxAttributesOf, outboxPartition, outboxShardCount, workspaceEventsPartition } from './event-keys.ts';

const outboxItemSchema = z.object({ workspaceId: z.string(), eventId: z.string(), eventType: z.enum(eventTypes), recordedAt: z.string() });
const expiredItemSchema = z.object({ eventId: z.string(), dataObjectKey: z.optional(z.string()) });

const retentionMs = eventRetentionDays * 24 * 3600 * 1000;

/**
 * Events in the records table (key layout: event-keys.ts): the recorder's conditional put, the outbox
 * as the sparse gsi6, and the purge's reads and deletes of expired events.
 */
export class DynamoEventRecords implements EventRecords, OutboxEntries, ExpiredEvents {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * `data` as its JSON text (`dataJson`), or `dataObjectKey`; the outbox attributes in the same
   * conditional put, so the event is in the outbox from its first write on.
   */
  async add(event: StoredEvent): Promise<boolean> {
    const { workspaceId, envelope, data, recordedAt, expiresAt } = event;
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...eventKey(envelope.eventId),
            workspaceId,
            ...envelope,
            ...('json' in data ? { dataJson: data.json } : { dataObjectKey: data.objectKey }),
            recordedAt,
            gsi1pk: workspaceEventsPartition(workspaceId),
            gsi1sk: `${envelope.occurredAt}#${envelope.eventId}`,
            ...outboxAttributesOf(envelope.eventId, recordedAt),
            expiresAt,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /** Shard by shard (gsi6 `EVT#OUTBOX#<shard>`), each oldest first. */
  async *recordedBefore(recordedBefore: string): AsyncGenerator<OutboxEntry & { recordedAt: string }> {
    for (let shard = 0; shard < outboxShardCount; shard += 1) {
      const pages = queryPages(this.client, {
        TableName: this.tableName,
        IndexName: 'gsi6',
        // `<recordedAt>#<eventId>` sorts below `before` exactly when recordedAt is earlier.
        KeyConditionExpression: 'gsi6pk = :shard AND gsi6sk < :before',
        ExpressionAttributeValues: { ':shard': outboxPartition(shard), ':before': recordedBefore },
      });
      for await (const page of pages) {
        for (const item of page.Items ?? []) yield outboxItemSchema.parse(item);
      }
    }
  }

  async remove(eventId: string): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: eventKey(eventId),
          UpdateExpression: 'REMOVE gsi6pk, gsi6sk',
          ConditionExpression: 'attribute_exists(gsi6pk)',
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error; // already cleared (a racing drain)
    }
  }

  /**
   * Never a Scan: a Query of the workspace's events partition (gsi1 `WS#<ws>#EVENTS`) below the key
   * `<now − 90 days>`, since `expiresAt` is `occurredAt` + 90 days; `expiresAt <= now` as a filter keeps
   * it exact to the second.
   */
  async ofWorkspace(workspaceId: string, now: Date): Promise<ExpiredEvent[]> {
    const expired: ExpiredEvent[] = [];
    const pages = queryPages(this.client, {
      TableName: this.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk < :cutoff',
      FilterExpression: 'expiresAt <= :now',
      ExpressionAttributeValues: {
        ':pk': workspaceEventsPartition(workspaceId),
        // An event that occurred within the last 90 days cannot have expired; a second's margin for
        // expiresAt's rounding down, the filter decides.
        ':cutoff': new Date(now.getTime() - retentionMs + 1000).toISOString(),
        ':now': Math.floor(now.getTime() / 1000),
      },
      ProjectionExpression: 'eventId, dataObjectKey',
    });
    for await (const page of pages) {
      for (const item of page.Items ?? []) expired.push(expiredItemSchema.parse(item));
    }
    return expired;
  }

  async delete(event: ExpiredEvent): Promise<void> {
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: eventKey(event.eventId) }));
  }
}
