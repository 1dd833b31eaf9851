import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { callDownstream } from '../../platform/downstream-calls.ts';
import { ConflictError } from '../../platform/errors.ts';
import { logger } from '../../infrastructure/logger.ts';
import type { SubscriptionQuota } from '../subscription-quota.ts';
import { subscriptionQuota } from '../subscription.ts';

// One quota item per workspace (pk `WS#<ws>#SUBQUOTA`, sk `QUOTA`) holding a map `slots` of
// subscription id → the time its slot was taken. A create takes its slot by one conditional update
// (`size(slots) < 25`), so of two creates racing for the last slot exactly one wins; a delete, or a
// create whose write failed, removes its own entry.
//
// Why a map and not a counter: dynalite has no TransactWriteItems, so the subscription's delete and
// the slot's release are two writes, and the second can fail after the first. A counter cannot tell
// which of its units leaked; the map names them. When a create finds the quota full, it checks the
// entries older than `staleAfterMs` against the subscriptions that exist, removes those whose
// subscription is gone (each conditional on the entry being unchanged), and tries once more: a leaked
// slot costs one extra read on the next create that needs it, never a lost slot.
const quotaKey = (workspaceId: string) => ({ pk: `WS#${workspaceId}#SUBQUOTA`, sk: 'QUOTA' });
const subscriptionKey = (subscriptionId: string) => ({ pk: `SUB#${subscriptionId}`, sk: 'SUBSCRIPTION' });

/** subscription id → when its slot was taken (ISO 8601). */
const quotaItemSchema = z.object({ slots: z.optional(z.record(z.string(), z.string())) });
const slotOwnerSchema = z.object({ id: z.string(), createdAt: z.string() });
const existingSubscriptionSchema = z.object({ id: z.string() });

/**
 * An entry younger than this may belong to a create that took its slot and has not written its
 * subscription yet (an API function lives 29 s at most): it is never taken for a leak.
 */
export const defaultStaleSlotMs = 5 * 60_000;

export interface SubscriptionQuotaOptions {
  limit?: number;
  staleAfterMs?: number;
  now?: () => Date;
}

export class DynamoSubscriptionQuota implements SubscriptionQuota {
  private readonly limit: number;
  private readonly staleAfterMs: number;
  private readonly now: () => Date;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    options: SubscriptionQuotaOptions = {},
  ) {
    this.limit = options.limit ?? subscriptionQuota;
    this.staleAfterMs = options.staleAfterMs ?? defaultStaleSlotMs;
    this.now = options.now ?? (() => new Date());
  }

  /** Takes the slot of `subscriptionId`; 409 CONFLICT when the workspace already has `limit` subscriptions. */
  async reserve(workspaceId: string, subscriptionId: string): Promise<void> {
    const reserved = await callDownstream('DynamoDB UpdateItem (subscription quota)', async () => {
      if (await this.takeSlot(workspaceId, subscriptionId)) return true;
      const slots = await this.slotsOf(workspaceId);
      // A workspace without the map (new, or from before it) gets one listing its subscriptions.
      if (!slots) await this.initialise(workspaceId);
      // A slot freed since the failed update (a delete in between) is simply taken.
      else if (Object.keys(slots).length >= this.limit && (await this.removeLeakedSlots(workspaceId, slots)) === 0) return false;
      return this.takeSlot(workspaceId, subscriptionId);
    });
    // Thrown out here: inside callDownstream a typed error with a code would read as a downstream failure.
    if (!reserved) throw new ConflictError(`A workspace has at most ${this.limit} event subscriptions; delete one to create another.`);
  }

  /** Gives the slot of `subscriptionId` back (after a delete, or a create that failed after reserving); idempotent. */
  async release(workspaceId: string, subscriptionId: string): Promise<void> {
    await callDownstream('DynamoDB UpdateItem (subscription quota)', async () => {
      try {
        await this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: quotaKey(workspaceId),
            UpdateExpression: 'REMOVE slots.#id',
            ConditionExpression: 'attribute_exists(slots)',
            ExpressionAttributeNames: { '#id': subscriptionId },
          }),
        );
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    });
  }

  private async takeSlot(workspaceId: string, subscriptionId: string): Promise<boolean> {
    return this.conditionally(
      new UpdateCommand({
        TableName: this.tableName,
        Key: quotaKey(workspaceId),
        UpdateExpression: 'SET slots.#id = :at',
        ConditionExpression: 'attribute_exists(slots) AND size(slots) < :limit',
        ExpressionAttributeNames: { '#id': subscriptionId },
        ExpressionAttributeValues: { ':at': this.now().toISOString(), ':limit': this.limit },
      }),
    );
  }

  private async slotsOf(workspaceId: string): Promise<Record<string, string> | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: quotaKey(workspaceId), ConsistentRead: true }));
    return Item ? quotaItemSchema.parse(Item).slots : undefined;
  }

  /** The map as the workspace's subscriptions say; a concurrent create that initialised it first wins. */
  private async initialise(workspaceId: string): Promise<void> {
    const { Items = [] } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :partition',
        ExpressionAttributeValues: { ':partition': `WS#${workspaceId}#SUB` },
        ProjectionExpression: 'id, createdAt',
      }),
    );
    await this.conditionally(
      new UpdateCommand({
        TableName: this.tableName,
        Key: quotaKey(workspaceId),
        UpdateExpression: 'SET slots = :slots',
        ConditionExpression: 'attribute_not_exists(slots)',
        ExpressionAttributeValues: { ':slots': Object.fromEntries(Items.map((item) => {
          const { id, createdAt } = slotOwnerSchema.parse(item);
          return [id, createdAt];
        })) },
      }),
    );
  }

  /** Removes the entries older than the grace whose subscription no longer exists; answers how many. */
  private async removeLeakedSlots(workspaceId: string, slots: Record<string, string>): Promise<number> {
    const cutoff = this.now().getTime() - this.staleAfterMs;
    const candidates = Object.entries(slots).filter(([, takenAt]) => Date.parse(takenAt) < cutoff);
    if (candidates.length === 0) return 0;
    const existing = new Set<string>();
    // At most `limit` (25) keys: one BatchGetItem of 100 at most; consistent, so a live subscription is never missed.
    let keys: Record<string, unknown>[] = candidates.map(([id]) => subscriptionKey(id));
    while (keys.length > 0) {
      const { Responses, UnprocessedKeys } = await this.client.send(
        new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: keys, ConsistentRead: true, ProjectionExpression: 'id' } } }),
      );
      for (const item of Responses?.[this.tableName] ?? []) existing.add(existingSubscriptionSchema.parse(item).id);
      keys = UnprocessedKeys?.[this.tableName]?.Keys ?? [];
    }
    let removed = 0;
    for (const [id, takenAt] of candidates) {
      if (existing.has(id)) continue;
      const released = await this.conditionally(
        new UpdateCommand({
          TableName: this.tableName,
          Key: quotaKey(workspaceId),
          UpdateExpression: 'REMOVE slots.#id',
          ConditionExpression: 'slots.#id = :takenAt',
          ExpressionAttributeNames: { '#id': id },
          ExpressionAttributeValues: { ':takenAt': takenAt },
        }),
      );
      if (released) {
        removed += 1;
        logger.warn('subscription quota slot of a deleted subscription released', { workspaceId, subscriptionId: id, takenAt });
      }
    }
    return removed;
  }

  private async conditionally(command: UpdateCommand): Promise<boolean> {
    try {
      await this.client.send(command);
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}
