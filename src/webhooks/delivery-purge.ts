import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchWrite } from '../infrastructure/dynamodb-batches.ts';
import { queryAllItems } from '../infrastructure/dynamodb-queries.ts';
import { fanOutClaimKey } from './delivery-store.ts';
import type { EventDependents } from '../events/expired-event-purge.ts';

/**
 * The deliveries of an event and their attempt records, removed when the event expires (the events
 * module's purge calls it before deleting the event; DynamoDB TTL does the same deployed, since every
 * delivery and attempt carries its event's `expiresAt`). Queries by key only: the event's partition
 * (`EVENT#<evt>`, `DELIVERY#…`, and the fan-out claim `FANOUT`), then each delivery's attempts (`DLV#<dlv>`). Attempts go first, so a
 * purge that stops half-way still finds the delivery, and through it the attempts, next time.
 */
export class DeliveryPurge implements EventDependents {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async purgeOfEvent(eventId: string): Promise<void> {
    const deliveries = await queryAllItems(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': `EVENT#${eventId}`, ':prefix': 'DELIVERY#' },
      ProjectionExpression: 'pk, sk, id',
    });
    for (const delivery of deliveries) {
      const attempts = await queryAllItems(this.client, {
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': `DLV#${delivery.id as string}`, ':prefix': 'ATTEMPT#' },
        ProjectionExpression: 'pk, sk',
      });
      await batchWrite(this.client, this.tableName, attempts.map(deleteRequest));
    }
    // The fan-out claim goes with the deliveries it guarded (a delete of a missing item is no error).
    await batchWrite(this.client, this.tableName, [...deliveries.map(deleteRequest), deleteRequest(fanOutClaimKey(eventId))]);
  }
}

function deleteRequest(item: Record<string, unknown>): Record<string, unknown> {
  return { DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } };
}
