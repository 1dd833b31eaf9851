import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import type { EventDependents } from '../../events/expired-event-purge.ts';
import { batchWrite } from '../../infrastructure/dynamodb-batches.ts';
import { queryAllItems } from '../../infrastructure/dynamodb-queries.ts';
import { fanOutClaimKey } from './dynamodb-delivery-store.ts';

const itemKeySchema = z.object({ pk: z.string(), sk: z.string() });

/**
 * The deliveries of an event, with the attempt records they hold, removed when the event expires (the
 * events module's purge calls it before deleting the event; DynamoDB TTL does the same deployed, since
 * every delivery carries its event's `expiresAt`). One Query by key: the event's partition
 * (`EVENT#<evt>`, `DELIVERY#…`, and the fan-out claim `FANOUT`).
 */
export class DynamoDeliveryPurge implements EventDependents {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async purgeOfEvent(eventId: string): Promise<void> {
    const deliveries = await queryAllItems(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': `EVENT#${eventId}`, ':prefix': 'DELIVERY#' },
      ProjectionExpression: 'pk, sk',
    });
    // The fan-out claim goes with the deliveries it guarded (a delete of a missing item is no error).
    await batchWrite(this.client, this.tableName, [...deliveries.map(deleteRequest), deleteRequest(fanOutClaimKey(eventId))]);
  }
}

function deleteRequest(item: Record<string, unknown>): Record<string, unknown> {
  const { pk, sk } = itemKeySchema.parse(item);
  return { DeleteRequest: { Key: { pk, sk } } };
}
