import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { callDownstream } from '../platform/downstream-calls.ts';
import { ConflictError } from '../platform/errors.ts';
import { subscriptionQuota } from './subscription.ts';

// One counter item per workspace (pk `WS#<ws>#SUBQUOTA`, sk `QUOTA`), incremented conditionally
// (`count < 25`) before a subscription is written and decremented after one is deleted. DynamoDB
// applies each conditional update alone, so of two creates racing for the last slot exactly one wins.
const quotaKey = (workspaceId: string) => ({ pk: `WS#${workspaceId}#SUBQUOTA`, sk: 'QUOTA' });

export class SubscriptionQuota {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly limit = subscriptionQuota,
  ) {}

  /** Takes a slot; 409 CONFLICT when the workspace already has `limit` subscriptions. */
  async reserve(workspaceId: string): Promise<void> {
    const reserved = await callDownstream('DynamoDB UpdateItem (subscription quota)', async () => {
      try {
        await this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: quotaKey(workspaceId),
            UpdateExpression: 'ADD #count :one',
            ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
            ExpressionAttributeNames: { '#count': 'count' },
            ExpressionAttributeValues: { ':one': 1, ':limit': this.limit },
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    });
    // Thrown out here: inside callDownstream a typed error with a code would read as a downstream failure.
    if (!reserved) throw new ConflictError(`A workspace has at most ${this.limit} event subscriptions; delete one to create another.`);
  }

  /** Gives a slot back (after a delete, or a create that failed after reserving); never below zero. */
  async release(workspaceId: string): Promise<void> {
    await callDownstream('DynamoDB UpdateItem (subscription quota)', async () => {
      try {
        await this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: quotaKey(workspaceId),
            UpdateExpression: 'ADD #count :minusOne',
            ConditionExpression: '#count > :zero',
            ExpressionAttributeNames: { '#count': 'count' },
            ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
          }),
        );
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    });
  }
}
