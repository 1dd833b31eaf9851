import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EventEnvelope } from '../events/event-envelope.ts';

/** A recorded event: its workspace and the envelope a delivery sends. */
export interface RecordedEvent {
  workspaceId: string;
  envelope: EventEnvelope;
}

/** Where deliveries read the event they send (the events module records it). */
export interface EventPayloads {
  load(eventId: string): Promise<RecordedEvent | undefined>;
}

/** The envelope's fields in the spec's order, so every attempt sends the same bytes for the same event. */
export function envelopeBody(envelope: EventEnvelope): string {
  const { eventId, eventType, occurredAt, apiVersion, data } = envelope;
  return JSON.stringify({ eventId, eventType, occurredAt, apiVersion, data });
}

/**
 * Reads the event item the recorder writes (pk `EVENT#<id>` / sk `EVENT`, src/extractions/
 * extraction-events.ts); `data` too large for an item is in the files bucket under `dataObjectKey`.
 */
export class RecordedEventPayloads implements EventPayloads {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly s3: S3Client,
    private readonly bucketName: string,
  ) {}

  async load(eventId: string): Promise<RecordedEvent | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { pk: `EVENT#${eventId}`, sk: 'EVENT' } }));
    if (!Item) return undefined;
    let data = Item.data as Record<string, unknown> | undefined;
    if (data === undefined && typeof Item.dataObjectKey === 'string') {
      const object = await this.s3.send(new GetObjectCommand({ Bucket: this.bucketName, Key: Item.dataObjectKey }));
      data = JSON.parse(await object.Body!.transformToString('utf8')) as Record<string, unknown>;
    }
    return {
      workspaceId: Item.workspaceId as string,
      envelope: {
        eventId: Item.eventId as string,
        eventType: Item.eventType as EventEnvelope['eventType'],
        occurredAt: Item.occurredAt as string,
        apiVersion: 'v1',
        data: data ?? {},
      },
    };
  }
}
