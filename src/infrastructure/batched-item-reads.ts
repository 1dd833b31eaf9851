import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** BatchGetItem takes at most 100 keys per call. */
const maximumKeysPerBatchGet = 100;
/** Keys DynamoDB left unprocessed (throttling) are asked again, with a short growing pause. */
const unprocessedRetries = 5;

export interface BatchedItemReadOptions {
  /** Strongly consistent reads (BatchGetItem honours it per table), as GetItem with `ConsistentRead`. */
  consistentRead: boolean;
  /** Only these attributes; all of them when absent. */
  attributes?: readonly string[];
  /**
   * Answer a key read before from the first read. Only for a reader that lives as long as one
   * invocation (one batch of queue messages), never for state that the same invocation changes.
   */
  remember?: boolean;
}

type Key = Record<string, string>;
type Item = Record<string, unknown>;

/**
 * Gets of single items that are asked for in the same turn of the event loop, sent as one
 * BatchGetItem: a queue consumer handles the records of a batch concurrently, so the reads its
 * records start together (their deliveries, then their subscriptions) cost one call instead of ten.
 * A caller still sees one `get` per item, answering undefined for a missing one.
 */
export class BatchedItemReads {
  private pending = new Map<string, { key: Key; waiting: { resolve: (item: Item | undefined) => void; reject: (error: unknown) => void }[] }>();
  private readonly remembered = new Map<string, Promise<Item | undefined>>();
  private flushScheduled = false;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly options: BatchedItemReadOptions,
  ) {}

  get(key: Key): Promise<Item | undefined> {
    const id = keyId(key);
    const known = this.options.remember ? this.remembered.get(id) : undefined;
    if (known) return known;
    const read = new Promise<Item | undefined>((resolve, reject) => {
      const entry = this.pending.get(id) ?? { key, waiting: [] };
      entry.waiting.push({ resolve, reject });
      this.pending.set(id, entry);
    });
    if (this.options.remember) {
      this.remembered.set(id, read);
      // A failed read is not remembered: the next record (or the message's next receipt) asks again.
      read.catch(() => this.remembered.delete(id));
    }
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      // setImmediate runs after the promise jobs of this turn: every record of the batch has asked by then.
      setImmediate(() => void this.flush());
    }
    return read;
  }

  private async flush(): Promise<void> {
    const entries = [...this.pending.values()];
    this.pending = new Map();
    this.flushScheduled = false;
    for (let start = 0; start < entries.length; start += maximumKeysPerBatchGet) {
      const chunk = entries.slice(start, start + maximumKeysPerBatchGet);
      try {
        const found = await this.read(chunk.map((entry) => entry.key));
        for (const entry of chunk) {
          const item = found.get(keyId(entry.key));
          for (const waiting of entry.waiting) waiting.resolve(item);
        }
      } catch (error) {
        for (const entry of chunk) for (const waiting of entry.waiting) waiting.reject(error);
      }
    }
  }

  private async read(keys: Key[]): Promise<Map<string, Item>> {
    const found = new Map<string, Item>();
    const keyNames = Object.keys(keys[0]!);
    const attributes = this.options.attributes ? [...new Set([...keyNames, ...this.options.attributes])] : undefined;
    let remaining = keys;
    for (let round = 0; remaining.length > 0; round += 1) {
      if (round > unprocessedRetries) throw new Error(`BatchGetItem left ${remaining.length} keys unprocessed after ${unprocessedRetries} retries.`);
      if (round > 0) await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** round));
      const { Responses, UnprocessedKeys } = await this.client.send(
        new BatchGetCommand({
          RequestItems: {
            [this.tableName]: {
              Keys: remaining,
              ConsistentRead: this.options.consistentRead,
              ...(attributes
                ? {
                    ProjectionExpression: attributes.map((_, index) => `#a${index}`).join(', '),
                    ExpressionAttributeNames: Object.fromEntries(attributes.map((name, index) => [`#a${index}`, name])),
                  }
                : {}),
            },
          },
        }),
      );
      for (const item of Responses?.[this.tableName] ?? []) found.set(keyId(Object.fromEntries(keyNames.map((name) => [name, keyAttribute(item, name)]))), item);
      remaining = (UnprocessedKeys?.[this.tableName]?.Keys ?? []) as Key[];
    }
    return found;
  }
}

/** A key as one string, its attributes in a fixed order. */
function keyId(key: Key): string {
  return JSON.stringify(Object.keys(key).sort().map((name) => [name, key[name]]));
}

/** The records table's keys are strings; an item whose key is not is not one this reader asked for. */
function keyAttribute(item: Record<string, unknown>, name: string): string {
  const value = item[name];
  if (typeof value !== 'string') throw new Error(`A batch read answered an item whose key attribute ${name} is not a string.`);
  return value;
}
