import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient, type UpdateCommandOutput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { eventTypes } from '../../events/event-envelope.ts';
import { BatchedItemReads } from '../../infrastructure/batched-item-reads.ts';
import { callDownstream } from '../../platform/downstream-calls.ts';
import type { EncryptedSigningSecret } from '../subscription-secrets.ts';
import type { ResumedSubscription, SubscriptionForDelivery, SubscriptionStore } from '../subscription-store.ts';
import { subscriptionStatuses, type SubscriptionChanges, type SubscriptionRecord } from '../subscription.ts';

// Key design (docs/webhooks.md): one item per subscription under pk `SUB#<id>`, sk `SUBSCRIPTION`,
// carrying its workspace; gsi1 (`WS#<ws>#SUB`, `<createdAt>#<id>`) holds a workspace's subscriptions,
// at most 25, read whole by one Query. Every read and write checks the workspace, so another
// workspace's subscription answers exactly as a missing one does. The secret is stored only as
// `secretCiphertext`, read by `encryptedSecretOf` and, with the record, by `getForDelivery`. After a
// rotation the secret it replaced stays as `previousSecretCiphertext` until `previousSecretExpiresAt`
// (docs/webhooks.md, Secret rotation).
const subscriptionKey = (subscriptionId: string) => ({ pk: `SUB#${subscriptionId}`, sk: 'SUBSCRIPTION' });
const workspacePartition = (workspaceId: string) => `WS#${workspaceId}#SUB`;

// A resumed subscription carries a sparse mark (gsi5 `SUBSCRIPTIONS#RESUMED` / `<resumedAt>#<id>`) until
// the held-delivery sweeper has released its held attempts once more after a grace period: a crash
// between the resume and its release, or an attempt held while the resume was being written, is then
// still released (docs/webhooks.md, Resume).
const resumedPartition = 'SUBSCRIPTIONS#RESUMED';


/** A subscription item's record attributes; `filters` may be missing on items written before it existed. */
const subscriptionItemSchema = z.object({
  id: z.string(),
  workspaceId: z.string(),
  name: z.string(),
  endpointUrl: z.string(),
  eventTypes: z.array(z.enum(eventTypes)),
  filters: z._default(z.object({ workflowId: z.optional(z.string()) }), {}),
  status: z.enum(subscriptionStatuses),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const recordAttributes = Object.keys(subscriptionItemSchema.shape);

const encryptedSecretSchema = z.object({
  keyProvider: z.string(),
  encryptedDataKey: z.string(),
  iv: z.string(),
  ciphertext: z.string(),
  authTag: z.string(),
});
const secretsItemSchema = z.object({
  secretCiphertext: z.optional(encryptedSecretSchema),
  previousSecretCiphertext: z.optional(encryptedSecretSchema),
  previousSecretExpiresAt: z.optional(z.string()),
});
const resumedItemSchema = z.object({ id: z.string(), workspaceId: z.string(), resumedAt: z.string() });



const deliveryAttributes = [...recordAttributes, 'secretCiphertext', 'previousSecretCiphertext', 'previousSecretExpiresAt'] as const;

export class DynamoSubscriptionStore implements SubscriptionStore {
  /** Set for one queue consumer invocation: its records' subscription reads are batched and remembered. */
  private readonly batchedReads: BatchedItemReads | undefined;
  /** Set for one queue consumer invocation: each workspace's subscriptions listed once (its fan-outs' candidates). */
  private readonly listedWorkspaces: Map<string, Promise<SubscriptionRecord[]>> | undefined;
  /**
   * Set for one queue consumer invocation: each subscription's item parsed once, however many of its
   * deliveries the invocation attempts (a batch of ten fan-outs asks 250 times for 25 subscriptions).
   */
  private readonly parsedForDelivery: Map<string, Promise<SubscriptionForDelivery | undefined>> | undefined;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    options: { batchReadsForOneInvocation?: boolean } = {},
  ) {
    this.batchedReads = options.batchReadsForOneInvocation
      ? new BatchedItemReads(client, tableName, { consistentRead: false, attributes: [...deliveryAttributes], remember: true })
      : undefined;
    this.listedWorkspaces = options.batchReadsForOneInvocation ? new Map() : undefined;
    this.parsedForDelivery = options.batchReadsForOneInvocation ? new Map() : undefined;
  }

  async create(record: SubscriptionRecord, secretCiphertext: EncryptedSigningSecret): Promise<void> {
    await callDownstream('DynamoDB PutItem (subscription)', () =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...subscriptionKey(record.id),
            ...record,
            secretCiphertext,
            gsi1pk: workspacePartition(record.workspaceId),
            gsi1sk: `${record.createdAt}#${record.id}`,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
  }

  async get(workspaceId: string, subscriptionId: string): Promise<SubscriptionRecord | undefined> {
    const item = await this.item(workspaceId, subscriptionId, recordAttributes);
    return item ? toSubscriptionRecord(item) : undefined;
  }

  /** The stored ciphertext of the signing secret, for the one reader that decrypts it. */
  async encryptedSecretOf(workspaceId: string, subscriptionId: string): Promise<EncryptedSigningSecret | undefined> {
    const item = await this.item(workspaceId, subscriptionId, ['workspaceId', 'secretCiphertext']);
    return item ? secretsItemSchema.parse(item).secretCiphertext : undefined;
  }

  /**
   * The record and the ciphertext of its secret in one read (the delivery consumer needs both for
   * every attempt); undefined when the workspace has no such subscription.
   */
  async getForDelivery(workspaceId: string, subscriptionId: string): Promise<SubscriptionForDelivery | undefined> {
    if (!this.batchedReads || !this.parsedForDelivery) return forDeliveryOf(await this.item(workspaceId, subscriptionId, deliveryAttributes));
    let parsed = this.parsedForDelivery.get(subscriptionId);
    if (!parsed) {
      parsed = callDownstream('DynamoDB BatchGetItem (subscriptions)', () => this.batchedReads!.get(subscriptionKey(subscriptionId))).then(forDeliveryOf);
      this.parsedForDelivery.set(subscriptionId, parsed);
      // A failed read is not remembered: the next record (or the message's next receipt) asks again.
      parsed.catch(() => this.parsedForDelivery!.delete(subscriptionId));
    }
    const found = await parsed;
    // Another workspace's subscription answers as a missing one, whoever asked first.
    return found?.record.workspaceId === workspaceId ? found : undefined;
  }


  /**
   * Replaces the signing secret in one conditional write. With `previousExpiresAt` the current secret
   * becomes the previous one until then (an older previous one is dropped: at most two secrets sign);
   * without it the current secret is removed at once, and any previous one with it. Undefined when
   * the workspace has no such subscription.
   */
  async rotateSecret(
    workspaceId: string,
    subscriptionId: string,
    secretCiphertext: EncryptedSigningSecret,
    options: { previousExpiresAt?: string; updatedAt: string },
  ): Promise<SubscriptionRecord | undefined> {
    const keepPrevious = options.previousExpiresAt !== undefined;
    const written = await this.conditionally(
      'DynamoDB UpdateItem (subscription secret)',
      new UpdateCommand({
        TableName: this.tableName,
        Key: subscriptionKey(subscriptionId),
        UpdateExpression: keepPrevious
          ? 'SET previousSecretCiphertext = secretCiphertext, previousSecretExpiresAt = :expiresAt, secretCiphertext = :secret, updatedAt = :updatedAt'
          : 'SET secretCiphertext = :secret, updatedAt = :updatedAt REMOVE previousSecretCiphertext, previousSecretExpiresAt',
        ConditionExpression: 'attribute_exists(pk) AND #workspaceId = :workspaceId',
        ExpressionAttributeNames: { '#workspaceId': 'workspaceId' },
        ExpressionAttributeValues: {
          ':secret': secretCiphertext,
          ':updatedAt': options.updatedAt,
          ':workspaceId': workspaceId,
          ...(keepPrevious ? { ':expiresAt': options.previousExpiresAt } : {}),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return written?.Attributes ? toSubscriptionRecord(written.Attributes) : undefined;
  }

  /**
   * Removes a previous secret whose overlap ended at `expiresAt`, unless a later rotation replaced it
   * meanwhile (that one has its own expiry). False when there was nothing to remove.
   */
  async destroyPreviousSecret(subscriptionId: string, expiresAt: string): Promise<boolean> {
    const written = await this.conditionally(
      'DynamoDB UpdateItem (subscription secret)',
      new UpdateCommand({
        TableName: this.tableName,
        Key: subscriptionKey(subscriptionId),
        UpdateExpression: 'REMOVE previousSecretCiphertext, previousSecretExpiresAt',
        ConditionExpression: 'previousSecretExpiresAt = :expiresAt',
        ExpressionAttributeValues: { ':expiresAt': expiresAt },
      }),
    );
    return written !== undefined;
  }

  /**
   * Every subscription of the workspace (at most the quota), in creation order. Within one consumer
   * invocation the first listing answers for the others: its records (up to ten fan-outs, mostly of
   * one workspace) were all received, so all their events recorded, before it was read, and a Query
   * of 25 items costs both the caller and the table far more than remembering it.
   */
  listWorkspace(workspaceId: string): Promise<SubscriptionRecord[]> {
    if (!this.listedWorkspaces) return this.queryWorkspace(workspaceId);
    let listed = this.listedWorkspaces.get(workspaceId);
    if (!listed) {
      listed = this.queryWorkspace(workspaceId);
      this.listedWorkspaces.set(workspaceId, listed);
      // A failed listing is not remembered: the next record (or the message's next receipt) asks again.
      listed.catch(() => this.listedWorkspaces?.delete(workspaceId));
    }
    return listed;
  }

  private async queryWorkspace(workspaceId: string): Promise<SubscriptionRecord[]> {
    const records: SubscriptionRecord[] = [];
    let exclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await callDownstream('DynamoDB Query (subscriptions)', () =>
        this.client.send(
          new QueryCommand({
            TableName: this.tableName,
            IndexName: 'gsi1',
            KeyConditionExpression: 'gsi1pk = :partition',
            ExpressionAttributeValues: { ':partition': workspacePartition(workspaceId) },
            ProjectionExpression: recordAttributes.map((_, index) => `#a${index}`).join(', '),
            ExpressionAttributeNames: Object.fromEntries(recordAttributes.map((name, index) => [`#a${index}`, name])),
            ExclusiveStartKey: exclusiveStartKey,
          }),
        ),
      );
      records.push(...(page.Items ?? []).map(toSubscriptionRecord));
      exclusiveStartKey = page.LastEvaluatedKey;
    } while (exclusiveStartKey);
    return records;
  }

  /**
   * Applies the changes and sets `updatedAt`; undefined when the workspace has no such subscription.
   * Setting `status: active` marks the subscription resumed in the same write; pausing removes the mark.
   */
  async update(workspaceId: string, subscriptionId: string, changes: SubscriptionChanges, updatedAt: string): Promise<SubscriptionRecord | undefined> {
    const resumeMark = changes.status === 'active' ? { resumedAt: updatedAt, gsi5pk: resumedPartition, gsi5sk: `${updatedAt}#${subscriptionId}` } : {};
    const fields = { ...changes, updatedAt, ...resumeMark };
    const names = Object.keys(fields);
    const removeMark = changes.status === 'paused' ? ' REMOVE resumedAt, gsi5pk, gsi5sk' : '';
    return callDownstream('DynamoDB UpdateItem (subscription)', async () => {
      try {
        const { Attributes } = await this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: subscriptionKey(subscriptionId),
            UpdateExpression: `SET ${names.map((_, index) => `#f${index} = :f${index}`).join(', ')}${removeMark}`,
            ConditionExpression: 'attribute_exists(pk) AND #workspaceId = :workspaceId',
            ExpressionAttributeNames: { ...Object.fromEntries(names.map((name, index) => [`#f${index}`, name])), '#workspaceId': 'workspaceId' },
            ExpressionAttributeValues: {
              ...Object.fromEntries(names.map((name, index) => [`:f${index}`, fields[name as keyof typeof fields]])),
              ':workspaceId': workspaceId,
            },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return Attributes ? toSubscriptionRecord(Attributes) : undefined;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return undefined;
        throw error;
      }
    });
  }

  /** Subscriptions resumed before `cutoff` (ISO 8601) whose mark the sweeper has not cleared, oldest first. */
  async resumedBefore(cutoff: string): Promise<ResumedSubscription[]> {
    const resumed: ResumedSubscription[] = [];
    let exclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: 'gsi5',
          KeyConditionExpression: 'gsi5pk = :partition AND gsi5sk < :cutoff',
          ExpressionAttributeValues: { ':partition': resumedPartition, ':cutoff': cutoff },
          ProjectionExpression: 'id, workspaceId, resumedAt',
          ExclusiveStartKey: exclusiveStartKey,
        }),
      );
      for (const item of page.Items ?? []) {
        const { id, workspaceId, resumedAt } = resumedItemSchema.parse(item);
        resumed.push({ workspaceId, subscriptionId: id, resumedAt });
      }
      exclusiveStartKey = page.LastEvaluatedKey;
    } while (exclusiveStartKey);
    return resumed;
  }

  /** Removes the resume mark, unless a later resume replaced it (that one gets its own sweep). */
  async clearResumeMark(subscriptionId: string, resumedAt: string): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: subscriptionKey(subscriptionId),
          UpdateExpression: 'REMOVE resumedAt, gsi5pk, gsi5sk',
          ConditionExpression: 'resumedAt = :resumedAt',
          ExpressionAttributeValues: { ':resumedAt': resumedAt },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  /** Deletes it; false when the workspace has no such subscription. */
  async delete(workspaceId: string, subscriptionId: string): Promise<boolean> {
    return callDownstream('DynamoDB DeleteItem (subscription)', async () => {
      try {
        await this.client.send(
          new DeleteCommand({
            TableName: this.tableName,
            Key: subscriptionKey(subscriptionId),
            ConditionExpression: 'attribute_exists(pk) AND #workspaceId = :workspaceId',
            ExpressionAttributeNames: { '#workspaceId': 'workspaceId' },
            ExpressionAttributeValues: { ':workspaceId': workspaceId },
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    });
  }

  /** Sends a conditional write; undefined when its condition did not hold. */
  private async conditionally(operation: string, command: UpdateCommand): Promise<UpdateCommandOutput | undefined> {
    return callDownstream(operation, async () => {
      try {
        return await this.client.send(command);
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return undefined;
        throw error;
      }
    });
  }

  private async item(workspaceId: string, subscriptionId: string, attributes: readonly string[]): Promise<Record<string, unknown> | undefined> {
    const { Item } = await callDownstream('DynamoDB GetItem (subscription)', () =>
      this.client.send(
        new GetCommand({
          TableName: this.tableName,
          Key: subscriptionKey(subscriptionId),
          ProjectionExpression: attributes.map((_, index) => `#a${index}`).join(', '),
          ExpressionAttributeNames: Object.fromEntries(attributes.map((name, index) => [`#a${index}`, name])),
        }),
      ),
    );
    return Item && Item.workspaceId === workspaceId ? Item : undefined;
  }
}

/** The record and its secrets' ciphertexts, parsed from one item; undefined for no item or no secret. */
function forDeliveryOf(item: Record<string, unknown> | undefined): SubscriptionForDelivery | undefined {
  if (!item) return undefined;
  const secrets = secretsItemSchema.parse(item);
  if (!secrets.secretCiphertext) return undefined;
  const found: SubscriptionForDelivery = { record: toSubscriptionRecord(item), secretCiphertext: secrets.secretCiphertext };
  if (secrets.previousSecretCiphertext && secrets.previousSecretExpiresAt !== undefined) {
    found.previousSecret = { ciphertext: secrets.previousSecretCiphertext, expiresAt: secrets.previousSecretExpiresAt };
  }
  return found;
}

function toSubscriptionRecord(item: Record<string, unknown>): SubscriptionRecord {
  return subscriptionItemSchema.parse(item);
}
