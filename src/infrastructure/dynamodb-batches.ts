import { BatchGetCommand, BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

const maximumBatchWriteItems = 25;
const maximumBatchGetItems = 100;

export interface BatchWriteOptions {
  /**
   * Asked before every request (the first and each retry of unprocessed items); a throw stops the
   * writes there. For writes that are safe only within a window, such as a claim's lease.
   */
  beforeEachRequest?: () => void;
}

/** Puts and deletes in batches of 25, retrying unprocessed items with backoff until all are done. */
export async function batchWrite(
  client: DynamoDBDocumentClient,
  tableName: string,
  requests: Record<string, unknown>[],
  options: BatchWriteOptions = {},
): Promise<void> {
  for (let start = 0; start < requests.length; start += maximumBatchWriteItems) {
    let pending = requests.slice(start, start + maximumBatchWriteItems);
    for (let attempt = 0; pending.length > 0; attempt += 1) {
      options.beforeEachRequest?.();
      const response = await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
      pending = (response.UnprocessedItems?.[tableName] as Record<string, unknown>[] | undefined) ?? [];
      if (pending.length > 0) await backOff(attempt);
    }
  }
}

/**
 * Gets items by key in batches of 100, retrying unprocessed keys with backoff; order is not kept.
 * `consistentRead`: strongly consistent, as GetItem with `ConsistentRead`.
 */
export async function batchGet(
  client: DynamoDBDocumentClient,
  tableName: string,
  keys: Record<string, unknown>[],
  options: { consistentRead?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for (let start = 0; start < keys.length; start += maximumBatchGetItems) {
    let pending = keys.slice(start, start + maximumBatchGetItems);
    for (let attempt = 0; pending.length > 0; attempt += 1) {
      const response = await client.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ...(options.consistentRead ? { ConsistentRead: true } : {}) } } }));
      items.push(...(response.Responses?.[tableName] ?? []));
      pending = (response.UnprocessedKeys?.[tableName]?.Keys as Record<string, unknown>[] | undefined) ?? [];
      if (pending.length > 0) await backOff(attempt);
    }
  }
  return items;
}

async function backOff(attempt: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 25 * 2 ** attempt)));
}
