import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { BatchedItemReads } from '../../infrastructure/batched-item-reads.ts';
import { batchGet, batchWrite } from '../../infrastructure/dynamodb-batches.ts';
import { queryAllItems, queryPages } from '../../infrastructure/dynamodb-queries.ts';
import { logger } from '../../infrastructure/logger.ts';
import { deliveryExpiresAt, type AttemptRecord, type DeliveryRecord } from '../delivery-records.ts';
import { FanOutInProgress, type AttemptSettlement, type DeliveryStore, type FanOut, type HeldDelivery, type OwnAttemptSettlement } from '../delivery-store.ts';

const deliveryKey = (eventId: string, deliveryId: string) => ({ pk: `EVENT#${eventId}`, sk: `DELIVERY#${deliveryId}` });
/**
 * An attempt's record is an attribute of its delivery item (`attempt0001`, …): a delivery has at most
 * 6 attempts (a resend 1), each at most the request headers and 4 KB of response body, so they fit
 * well inside DynamoDB's 400 KB item, and recording one is the same single-item write that settles it.
 */
const attemptAttributePattern = /^attempt\d{4}$/;
export const attemptAttribute = (number: number) => `attempt${String(number).padStart(4, '0')}`;
const heldPartition = (subscriptionId: string) => `SUB#${subscriptionId}#HELD`;
/** The fan-out claim of an event, beside its deliveries (the purge removes it with them). */
export const fanOutClaimKey = (eventId: string) => ({ pk: `EVENT#${eventId}`, sk: 'FANOUT' });
/**
 * The claim items that listed deliveries in flight, per workspace, by the time of the event's first
 * claim (gsi5, `<claimedAt>#<evt>`): a subscription's event list reads the recent ones, since the
 * deliveries index (gsi1) holds a delivery only once it is written.
 */
export const inFlightClaimsPartition = (workspaceId: string) => `WS#${workspaceId}#DELIVERING`;

/**
 * How long a fan-out's claim keeps other fan-outs of the event from writing its deliveries, and the
 * part of it in which the holder may still start its writes: the rest is margin for a write in flight,
 * so a slow holder never writes after another fan-out took the claim over.
 */
export const fanOutClaimMilliseconds = 30_000;
export const fanOutWriteWindowMilliseconds = 10_000;

/**
 * The delivery's own attributes as stored (`deliveryItem`): keys, index attributes and attempt records
 * are left out. Items are parsed, never cast: a malformed one fails loudly here, not later as a wrong state.
 */
const deliveryItemSchema = z.object({
  id: z.string(),
  eventId: z.string(),
  subscriptionId: z.string(),
  workspaceId: z.string(),
  eventType: z.string(),
  occurredAt: z.string(),
  trigger: z.enum(['automatic', 'manual']),
  status: z.enum(['PENDING', 'SUCCEEDED', 'FAILED']),
  attemptCount: z.number(),
  maxAttempts: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
  lastAttemptAt: z.nullable(z.string()),
  nextAttemptAt: z.nullable(z.string()),
  lastResponseStatus: z.nullable(z.number()),
  heldAttempt: z.optional(z.number()),
  scheduledAttempt: z.optional(z.number()),
  firstAttemptStartedAt: z.optional(z.string()),
});

const deliveryAttributes = Object.keys(deliveryItemSchema.shape);

/**
 * The fan-out claim item's deliveries in flight: those an event's first fan-out makes attempt 1 of
 * before their first write (the settle), keyed by delivery id, as they were created. Reads merge them
 * with the stored deliveries, a stored one winning; the next fan-out of the event creates any the
 * first one left unwritten.
 */
const claimItemSchema = z.object({ inFlight: z.optional(z.record(z.string(), deliveryItemSchema)) });

export function inFlightDeliveriesOf(item: Record<string, unknown> | undefined): DeliveryRecord[] {
  return item ? Object.values(claimItemSchema.parse(item).inFlight ?? {}) : [];
}

/** The delivery's own attributes as a ProjectionExpression (several are reserved words). */
const deliveryProjection = {
  expression: deliveryAttributes.map((_, index) => `#d${index}`).join(', '),
  names: Object.fromEntries(deliveryAttributes.map((name, index) => [`#d${index}`, name])),
};

function deliveryOf(item: Record<string, unknown>): DeliveryRecord {
  return deliveryItemSchema.parse(item);
}

function deliveryItem(record: DeliveryRecord): Record<string, unknown> {
  return {
    ...deliveryKey(record.eventId, record.id),
    ...record,
    gsi1pk: `SUB#${record.subscriptionId}#DELIVERIES`,
    gsi1sk: `${record.occurredAt}#${record.eventId}#${record.id}`,
    expiresAt: expiresAtOf(record),
  };
}

/** The delivery item once `own` is recorded and settled: what `settle`'s UpdateItem makes of it. */
function settledItem({ delivery, completed, settlement }: OwnAttemptSettlement): Record<string, unknown> {
  const { heldAttempt: _held, firstAttemptStartedAt: _started, ...rest } = delivery;
  return {
    ...deliveryItem({ ...rest, ...settlement, attemptCount: completed.number }),
    [attemptAttribute(completed.number)]: completed,
  };
}

/**
 * A fan-out's claim on its event as this fan-out holds it; `grantedAt` is when its claim or last
 * renewal was sent; `lost` once a renewal found it taken over, after which nothing is written under it.
 */
interface FanOutClaim {
  delivery: DeliveryRecord;
  token: string;
  grantedAt: number;
  lost?: boolean;
}

/** Attempt 1 is being made by the fan-out that wrote the delivery (its claim's holder, unless that one stopped). */
function inHolderFirstAttempt(delivery: DeliveryRecord): boolean {
  return delivery.status === 'PENDING' && delivery.attemptCount === 0 && delivery.heldAttempt === undefined && delivery.firstAttemptStartedAt !== undefined;
}

/** Items of one fan-out waiting to be written under its claim, and the caller waiting for them. */
interface ClaimedWrite {
  claim: FanOutClaim;
  items: Record<string, unknown>[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** BatchWriteItem takes at most 25 items. */
const itemsPerBatchWrite = 25;

/**
 * Gathers the settles of every fan-out a store serves (a consumer invocation runs up to ten side by
 * side, each settling its POSTs' outcomes a few at a time as they end) into shared BatchWriteItem
 * requests: a request costs the caller and the table several times what one more item in it costs
 * (docs/webhooks.md, "Eighth round"). What waits when a write is due goes out at once, whole fan-out
 * writes packed into requests of at most 25 items sent side by side; what arrives meanwhile goes in
 * the next, so no outcome waits for more than the write before it.
 */
class FanOutSettleWrites {
  private waiting: ClaimedWrite[] = [];
  private writing: Promise<void> | undefined;

  constructor(private readonly writeRequest: (writes: ClaimedWrite[]) => Promise<void>) {}

  write(claim: FanOutClaim, items: Record<string, unknown>[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ claim, items, resolve, reject });
      this.writing ??= this.writeAll();
    });
  }

  private async writeAll(): Promise<void> {
    // After the current turn of the event loop: the settles that became due in it go together.
    await new Promise((resolve) => setImmediate(resolve));
    try {
      while (this.waiting.length > 0) {
        const due = this.waiting;
        this.waiting = [];
        await Promise.all(packedRequests(due).map((writes) => this.writeRequest(writes)));
      }
    } finally {
      this.writing = undefined;
    }
  }
}

/** Whole writes packed into groups of at most 25 items (a larger write alone; batchWrite splits it). */
function packedRequests(writes: ClaimedWrite[]): ClaimedWrite[][] {
  const requests: ClaimedWrite[][] = [];
  let current: ClaimedWrite[] = [];
  let items = 0;
  for (const write of writes) {
    if (current.length > 0 && items + write.items.length > itemsPerBatchWrite) {
      requests.push(current);
      current = [];
      items = 0;
    }
    current.push(write);
    items += write.items.length;
  }
  if (current.length > 0) requests.push(current);
  return requests;
}

/** An attempt record (an `attempt<nnnn>` attribute, or an item of the earlier layout, which may lack the nullable fields). */
const attemptRecordSchema = z.object({
  number: z.number(),
  startedAt: z.string(),
  durationMs: z._default(z.nullable(z.number()), null),
  requestHeaders: z._default(z.record(z.string(), z.string()), {}),
  responseStatus: z._default(z.nullable(z.number()), null),
  responseBody: z._default(z.nullable(z.string()), null),
  error: z._default(
    z.nullable(z.object({ kind: z.enum(['timeout', 'connection refused', 'tls', 'dns', 'blocked address', 'redirect', 'http status']), message: z.string() })),
    null,
  ),
  outcome: z.enum(['pending', 'succeeded', 'failed']),
});

function attemptOf(item: unknown): AttemptRecord {
  return attemptRecordSchema.parse(item);
}

const heldItemSchema = z.object({ eventId: z.string(), id: z.string(), heldAttempt: z.number() });

/** Deliveries and attempts expire with their event (90 days, the table's TTL attribute). */
const expiresAtOf = deliveryExpiresAt;

/**
 * The records of docs/webhooks.md in the single table: delivery `EVENT#<evt>` / `DELIVERY#<dlv>`
 * (gsi1 per subscription, sparse gsi6 while held), its attempts as its attributes `attempt<nnnn>`.
 */
export class DynamoDeliveryStore implements DeliveryStore {
  /** Set for a queue consumer's invocation: the concurrent records' reads of deliveries go out as one BatchGetItem. */
  private readonly batchedReads: BatchedItemReads | undefined;

  /** The settles of the fan-outs this store serves, written together (FanOutSettleWrites). */
  private readonly fanOutSettles = new FanOutSettleWrites((writes) => this.writeTogetherUnderClaims(writes));

  constructor(
    readonly client: DynamoDBDocumentClient,
    readonly tableName: string,
    options: { batchReads?: boolean } = {},
  ) {
    // Consistent and never remembered: a delivery's state is what the engine's conditions check against.
    this.batchedReads = options.batchReads ? new BatchedItemReads(client, tableName, { consistentRead: true }) : undefined;
  }

  async create(record: DeliveryRecord): Promise<boolean> {
    return this.conditionally(new PutCommand({ TableName: this.tableName, Item: deliveryItem(record), ConditionExpression: 'attribute_not_exists(pk)' }));
  }

  /**
   * Three calls for up to 25 deliveries instead of a conditional put each: a claim on the event, one
   * consistent BatchGetItem, one BatchWriteItem of the missing ones. A batch write has no condition,
   * so it could overwrite a delivery another fan-out of the same event (the outbox hands off at least
   * once) has just written and already moved on; the claim rules that out: only its holder writes,
   * and only within the first part of its lease. A fan-out without the claim that finds every
   * delivery written and past its first attempt goes on as a repeated fan-out does; one that finds
   * some missing, or some still in the holder's first attempt (which the holder settles without a
   * condition, `settleOwnAttempts`), fails, and its hand-off comes back once the holder is done, has
   * handed the claim back, or its claim has run out. A holder whose window passed renews its claim
   * first (conditional on its own token) and fails if it was taken over. The event's first fan-out,
   * sending every attempt 1 itself, writes no delivery here: the claim lists them in flight
   * (`firstFanOut`), and a later claim creates what that list holds and is not stored.
   */
  async createAll(records: DeliveryRecord[]): Promise<FanOut> {
    const [first] = records;
    if (!first) return { deliveries: [], settleOwnAttempts: async () => [], writeCreation: async () => undefined, handBack: async () => undefined };
    const { eventId } = first;
    if (records.some((record) => record.eventId !== eventId)) throw new Error('A fan-out writes the deliveries of one event.');
    const claim: FanOutClaim = { delivery: first, token: randomUUID(), grantedAt: performance.now() };
    // Deliveries whose attempt 1 this fan-out makes itself (all or none: `sendFirstAttemptsNow`) go on
    // the claim item as in flight, so an event's first fan-out need not write them before the POSTs.
    const sendingNow = records.every((record) => record.firstAttemptStartedAt !== undefined);
    const { granted: claimed, firstOfEvent, earlierInFlight } = await this.claimFanOut(first, claim.token, { inFlight: sendingNow ? records : undefined });
    if (claimed && firstOfEvent && sendingNow) return this.firstFanOut(claim, records);
    // A fan-out before this one may have stopped after its POSTs, before their settle: its deliveries
    // are in flight on the claim item and nowhere else, and are created here with the event's others
    // (attempt 1 is made again: at least once, the same eventId), whether or not they still match.
    const known = new Set(records.map((record) => record.id));
    const leftInFlight = earlierInFlight
      .filter((record) => !known.has(record.id))
      .map(({ firstAttemptStartedAt: _started, ...record }) => (first.firstAttemptStartedAt ? { ...record, firstAttemptStartedAt: first.firstAttemptStartedAt } : record));
    records = [...records, ...leftInFlight];
    // Only a claim's holder writes an event's deliveries, and the claim item stays once written (a
    // hand-back removes only the claim's attributes; the purge removes it with the deliveries): a
    // claim that created it is the event's first fan-out, and there is nothing to read yet. Otherwise
    // the read follows the claim, so it sees every write of an earlier holder: that one wrote within
    // 10 s of its claim (or its renewal), and this claim is granted only 30 s after that.
    const items = firstOfEvent
      ? []
      : await batchGet(this.client, this.tableName, records.map((record) => deliveryKey(record.eventId, record.id)), { consistentRead: true });
    const stored = new Map(
      items.map((item) => {
        const delivery = deliveryOf(item);
        return [delivery.id, delivery] as const;
      }),
    );
    const missing = records.filter((record) => !stored.has(record.id));
    if (!claimed && missing.length > 0) throw new FanOutInProgress(eventId, 'another fan-out of the event holds its claim');
    // The holder records its own first attempts without conditions (settleOwnAttempts), so while it
    // holds the claim nobody else may queue or make them.
    if (!claimed && [...stored.values()].some(inHolderFirstAttempt)) {
      throw new FanOutInProgress(eventId, 'another fan-out of the event is making their first attempts');
    }
    await this.writeUnderClaim(claim, missing.map(deliveryItem));
    return {
      deliveries: records.map((record) => {
        const current = stored.get(record.id);
        return current ? { current, createdNow: false } : { current: record, createdNow: true };
      }),
      settleOwnAttempts: (settlements) => (claimed ? this.settleUnderClaim(claim, settlements) : this.settleEach(settlements)),
      writeCreation: async () => undefined,
      handBack: () => (claimed ? this.handBackClaim(claim) : Promise.resolve()),
    };
  }

  /**
   * The event's first fan-out, sending attempt 1 of every delivery itself: nothing is written before
   * the POSTs (the claim item lists the deliveries in flight), and each delivery's one write is the
   * settle that records attempt 1 on it, unless a hold or an end comes first (`writeCreation`). Its
   * claim rules out any other writer meanwhile: no delivery of the event exists, and a later fan-out
   * writes only once this claim ran out, 20 s after this one's last write could have been sent.
   */
  private firstFanOut(claim: FanOutClaim, records: DeliveryRecord[]): FanOut {
    const unwritten = new Map(records.map((record) => [record.id, record]));
    return {
      deliveries: records.map((current) => ({ current, createdNow: true })),
      settleOwnAttempts: async (settlements) => {
        const settled = await this.settleUnderClaim(claim, settlements, unwritten);
        settlements.forEach(({ delivery }, index) => settled[index] && unwritten.delete(delivery.id));
        return settled;
      },
      writeCreation: async (delivery) => {
        const record = unwritten.get(delivery.id);
        if (!record) return;
        await this.writeUnderClaim(claim, [deliveryItem(record)]);
        unwritten.delete(delivery.id);
      },
      handBack: () => this.handBackClaim(claim),
    };
  }

  private async handBackClaim(claim: FanOutClaim): Promise<void> {
    try {
      await this.conditionally(
        new UpdateCommand({
          TableName: this.tableName,
          Key: fanOutClaimKey(claim.delivery.eventId),
          UpdateExpression: 'REMOVE claimedUntil, claimToken',
          ConditionExpression: 'claimToken = :token',
          ExpressionAttributeValues: { ':token': claim.token },
        }),
      );
    } catch (error) {
      logger.warn('the fan-out claim could not be handed back; it runs out instead', { eventId: claim.delivery.eventId, error });
    }
  }

  /**
   * Whole items in BatchWriteItem requests, each sent within the claim's write window: a slow store
   * may have used up the window, and a renewal that finds the claim still this fan-out's proves nobody
   * took it over meanwhile and opens a new one.
   */
  private async writeUnderClaim(claim: FanOutClaim, items: Record<string, unknown>[]): Promise<void> {
    if (items.length === 0) return;
    await this.openWriteWindow(claim);
    await this.writeWithinWindows([claim], items);
  }

  /** Throws unless the claim is still this fan-out's and inside its write window, renewing it first where the window passed. */
  private async openWriteWindow(claim: FanOutClaim): Promise<void> {
    const { eventId } = claim.delivery;
    // A later write of the same fan-out (its settles come in several batches) must not take the
    // window a failed renewal opened for a claim it no longer holds.
    if (claim.lost) throw new FanOutInProgress(eventId, 'its claim was taken over');
    if (performance.now() - claim.grantedAt > fanOutWriteWindowMilliseconds) {
      claim.grantedAt = performance.now();
      if (!(await this.claimFanOut(claim.delivery, claim.token, { renewal: true })).granted) {
        claim.lost = true;
        throw new FanOutInProgress(eventId, 'its claim ran out and was taken over');
      }
    }
  }

  /** Whole items, each request (and each retry of unprocessed items) sent only while every claim's window is open. */
  private async writeWithinWindows(claims: FanOutClaim[], items: Record<string, unknown>[]): Promise<void> {
    await batchWrite(
      this.client,
      this.tableName,
      items.map((Item) => ({ PutRequest: { Item } })),
      {
        beforeEachRequest: () => {
          const closed = claims.find((claim) => performance.now() - claim.grantedAt > fanOutWriteWindowMilliseconds);
          if (closed) throw new FanOutInProgress(closed.delivery.eventId, 'the claim is too old to write under');
        },
      },
    );
  }

  /**
   * Settles of several fan-outs in as few BatchWriteItem requests as they fit, each fan-out's items
   * under its own claim: a claim taken over fails its own writes only; a request that fails fails
   * the writes in it, which then settle each conditionally (settleUnderClaim).
   */
  private async writeTogetherUnderClaims(writes: ClaimedWrite[]): Promise<void> {
    const windows = new Map<FanOutClaim, Promise<void>>();
    for (const { claim } of writes) if (!windows.has(claim)) windows.set(claim, this.openWriteWindow(claim));
    const opened = await Promise.allSettled(writes.map(({ claim }) => windows.get(claim)));
    const open = writes.filter((write, index) => {
      const window = opened[index]!;
      if (window.status === 'rejected') write.reject(window.reason);
      return window.status === 'fulfilled';
    });
    if (open.length === 0) return;
    try {
      await this.writeWithinWindows([...new Set(open.map(({ claim }) => claim))], open.flatMap(({ items }) => items));
      for (const write of open) write.resolve();
    } catch (error) {
      for (const write of open) write.reject(error);
    }
  }

  /**
   * The fan-out's own attempts on the deliveries it created, recorded and settled by whole items in a
   * BatchWriteItem (shared with the other fan-outs this store serves: FanOutSettleWrites) instead of
   * a conditional UpdateItem each. Unconditional puts are
   * safe only while nothing else writes these items: under the claim no other fan-out writes or
   * queues their first attempts (createAll), their next attempts are queued only once this settles,
   * and a hold or an end without attempt is this fan-out's own, for deliveries not settled here. Where
   * the claim cannot be renewed (taken over after 30 s) or the batch fails, each settles
   * conditionally instead, also counting as its own an attempt the failed batch did write.
   */
  private async settleUnderClaim(claim: FanOutClaim, settlements: OwnAttemptSettlement[], unwritten?: ReadonlyMap<string, DeliveryRecord>): Promise<boolean[]> {
    if (settlements.length === 0) return [];
    try {
      await this.fanOutSettles.write(claim, settlements.map(settledItem));
      return settlements.map(() => true);
    } catch (error) {
      logger.warn('the fan-out\'s attempts could not be settled in one batch; settling each conditionally', { eventId: claim.delivery.eventId, error });
      return Promise.all(
        settlements.map((own) => (unwritten?.has(own.delivery.id) ? this.settleUnwritten(claim, own) : this.settle(own, { countWrittenAsOwn: true }))),
      );
    }
  }

  /**
   * The conditional settle of a delivery this fan-out has not written yet: its whole settled item put
   * where no item is (or where the failed batch already put this very attempt), and only within the
   * claim's write window. Once the claim was taken over the attempt stays unrecorded (false): the
   * fan-out that took it over may already have read the delivery as missing, and it creates the
   * delivery from the claim item and sends attempt 1 again (at least once, one recorded outcome).
   */
  private async settleUnwritten(claim: FanOutClaim, own: OwnAttemptSettlement): Promise<boolean> {
    try {
      await this.openWriteWindow(claim);
    } catch (error) {
      if (error instanceof FanOutInProgress) return false;
      throw error;
    }
    return this.conditionally(
      new PutCommand({
        TableName: this.tableName,
        Item: settledItem(own),
        ConditionExpression: 'attribute_not_exists(pk) OR (attemptCount = :attempt AND #attempt.startedAt = :startedAt)',
        ExpressionAttributeNames: { '#attempt': attemptAttribute(own.completed.number) },
        ExpressionAttributeValues: { ':attempt': own.completed.number, ':startedAt': own.completed.startedAt },
      }),
    );
  }

  private settleEach(settlements: OwnAttemptSettlement[], options: { countWrittenAsOwn?: boolean } = {}): Promise<boolean[]> {
    return Promise.all(settlements.map((own) => this.settle(own, options)));
  }

  /**
   * Takes the event's fan-out claim unless another fan-out holds it (`granted` false then). A renewal
   * extends the claim only while it is still this fan-out's own (`token`), however long ago it was
   * taken. `firstOfEvent`: the claim created the claim item (no old item came back with the write),
   * so no fan-out of the event claimed before.
   */
  private async claimFanOut(
    delivery: DeliveryRecord,
    token: string,
    options: { renewal?: boolean; inFlight?: DeliveryRecord[] } = {},
  ): Promise<{ granted: boolean; firstOfEvent: boolean; earlierInFlight: DeliveryRecord[] }> {
    const now = Date.now();
    // Only the event's first claim writes the deliveries in flight: a later one finds that list and
    // writes its deliveries before attempting them, so the list never needs to change.
    const inFlight = options.inFlight && !options.renewal ? Object.fromEntries(options.inFlight.map((record) => [record.id, record])) : undefined;
    const written = await this.sentIfConditionHolds(
      new UpdateCommand({
        TableName: this.tableName,
        Key: fanOutClaimKey(delivery.eventId),
        UpdateExpression: `SET claimedUntil = :until, claimToken = :token, expiresAt = :expiresAt${
          inFlight ? ', inFlight = if_not_exists(inFlight, :inFlight), gsi5pk = if_not_exists(gsi5pk, :inFlightClaims), gsi5sk = if_not_exists(gsi5sk, :claimedAt)' : ''
        }`,
        ConditionExpression: options.renewal ? 'claimToken = :token' : 'attribute_not_exists(claimedUntil) OR claimedUntil < :now',
        ExpressionAttributeValues: {
          ':until': new Date(now + fanOutClaimMilliseconds).toISOString(),
          ':token': token,
          ':expiresAt': expiresAtOf(delivery),
          ...(options.renewal ? {} : { ':now': new Date(now).toISOString() }),
          ...(inFlight
            ? { ':inFlight': inFlight, ':inFlightClaims': inFlightClaimsPartition(delivery.workspaceId), ':claimedAt': `${new Date(now).toISOString()}#${delivery.eventId}` }
            : {}),
        },
        ReturnValues: 'ALL_OLD',
      }),
    );
    if (!written) return { granted: false, firstOfEvent: false, earlierInFlight: [] };
    return { granted: true, firstOfEvent: written.Attributes === undefined, earlierInFlight: inFlightDeliveriesOf(written.Attributes) };
  }

  async get(eventId: string, deliveryId: string): Promise<DeliveryRecord | undefined> {
    const item = await this.itemOf(deliveryKey(eventId, deliveryId));
    if (item) return deliveryOf(item);
    // Not written yet: its fan-out may be making attempt 1 (the claim item lists it in flight).
    return inFlightDeliveriesOf(await this.itemOf(fanOutClaimKey(eventId))).find((record) => record.id === deliveryId);
  }

  private async itemOf(key: { pk: string; sk: string }): Promise<Record<string, unknown> | undefined> {
    if (this.batchedReads) return this.batchedReads.get(key);
    return (await this.client.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }))).Item;
  }

  async listOfEvent(eventId: string): Promise<DeliveryRecord[]> {
    // One Query of the event's partition from its deliveries on (`DELIVERY#…`, the event's own item
    // `EVENT`, the claim `FANOUT`), so the deliveries in flight on the claim item come in the same read.
    const items = await queryAllItems(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND sk >= :first',
      ExpressionAttributeValues: { ':pk': `EVENT#${eventId}`, ':first': 'DELIVERY#' },
      // The deliveries without the attempt records they hold (up to 6 × ~5 KB each): lists and
      // summaries need none of them.
      ProjectionExpression: `${deliveryProjection.expression}, #sk, #inFlight`,
      ExpressionAttributeNames: { ...deliveryProjection.names, '#sk': 'sk', '#inFlight': 'inFlight' },
    });
    const stored = items.filter((item) => typeof item.sk === 'string' && item.sk.startsWith('DELIVERY#')).map(({ sk: _sk, ...item }) => deliveryOf(item));
    const storedIds = new Set(stored.map((delivery) => delivery.id));
    const claimItem = items.find((item) => item.sk === fanOutClaimKey(eventId).sk);
    const inFlight = inFlightDeliveriesOf(claimItem && { inFlight: claimItem.inFlight }).filter((record) => !storedIds.has(record.id));
    return [...stored, ...inFlight].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }

  async markScheduled(eventId: string, deliveryId: string, attempt: number): Promise<void> {
    await this.conditionally(
      new UpdateCommand({
        TableName: this.tableName,
        Key: deliveryKey(eventId, deliveryId),
        UpdateExpression: 'SET scheduledAttempt = :attempt',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(scheduledAttempt) OR scheduledAttempt < :attempt)',
        ExpressionAttributeValues: { ':attempt': attempt },
      }),
    );
  }

  async hold(delivery: DeliveryRecord, attempt: number, at: string): Promise<boolean> {
    return this.conditionally(
      new UpdateCommand({
        TableName: this.tableName,
        Key: deliveryKey(delivery.eventId, delivery.id),
        UpdateExpression: 'SET heldAttempt = :attempt, gsi6pk = :held, gsi6sk = :id, updatedAt = :at REMOVE firstAttemptStartedAt',
        ConditionExpression: '#status = :pending AND attemptCount = :previous',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':attempt': attempt,
          ':held': heldPartition(delivery.subscriptionId),
          ':id': delivery.id,
          ':at': at,
          ':pending': 'PENDING',
          ':previous': attempt - 1,
        },
      }),
    );
  }

  async release(delivery: Pick<DeliveryRecord, 'eventId' | 'id'>, attempt: number): Promise<boolean> {
    return this.conditionally(
      new UpdateCommand({
        TableName: this.tableName,
        Key: deliveryKey(delivery.eventId, delivery.id),
        UpdateExpression: 'REMOVE heldAttempt, gsi6pk, gsi6sk',
        ConditionExpression: 'heldAttempt = :attempt',
        ExpressionAttributeValues: { ':attempt': attempt },
      }),
    );
  }

  async listHeld(subscriptionId: string): Promise<HeldDelivery[]> {
    const items = await queryAllItems(this.client, {
      TableName: this.tableName,
      IndexName: 'gsi6',
      KeyConditionExpression: 'gsi6pk = :held',
      ExpressionAttributeValues: { ':held': heldPartition(subscriptionId) },
    });
    // The index is sparse on gsi6pk; an item whose hold was just released may still show without its mark.
    return items
      .filter((item) => item.heldAttempt !== undefined)
      .map((item) => {
        const { eventId, id, heldAttempt } = heldItemSchema.parse(item);
        return { eventId, deliveryId: id, heldAttempt };
      });
  }

  async settleAttempt(delivery: DeliveryRecord, completed: AttemptRecord, settlement: AttemptSettlement): Promise<boolean> {
    return this.settle({ delivery, completed, settlement });
  }

  /**
   * `countWrittenAsOwn`: a delivery that already holds this very attempt (same number and start) is
   * written again and counts as settled, for a batch that failed after writing part of its items.
   */
  private async settle({ delivery, completed, settlement }: OwnAttemptSettlement, options: { countWrittenAsOwn?: boolean } = {}): Promise<boolean> {
    const attempt = completed.number;
    const nextAttempt = '#status = :pending AND attemptCount = :previous';
    return this.conditionally(
      new UpdateCommand({
        TableName: this.tableName,
        Key: deliveryKey(delivery.eventId, delivery.id),
        UpdateExpression:
          'SET #attempt = :record, attemptCount = :attempt, #status = :status, lastAttemptAt = :lastAttemptAt, lastResponseStatus = :lastResponseStatus, ' +
          'nextAttemptAt = :nextAttemptAt, updatedAt = :updatedAt REMOVE heldAttempt, gsi6pk, gsi6sk, firstAttemptStartedAt',
        // attemptCount = n - 1 on a PENDING delivery: attempt n is not recorded yet and is the next one,
        // so of several receipts of the same attempt exactly one records it (the first completion wins).
        ConditionExpression: options.countWrittenAsOwn ? `(${nextAttempt}) OR (attemptCount = :attempt AND #attempt.startedAt = :startedAt)` : nextAttempt,
        ExpressionAttributeNames: { '#status': 'status', '#attempt': attemptAttribute(attempt) },
        ExpressionAttributeValues: {
          ':record': completed,
          ':attempt': attempt,
          ':previous': attempt - 1,
          ':pending': 'PENDING',
          ':status': settlement.status,
          ':lastAttemptAt': settlement.lastAttemptAt,
          ':lastResponseStatus': settlement.lastResponseStatus,
          ':nextAttemptAt': settlement.nextAttemptAt,
          ':updatedAt': settlement.updatedAt,
          ...(options.countWrittenAsOwn ? { ':startedAt': completed.startedAt } : {}),
        },
      }),
    );
  }

  async endWithoutAttempt(delivery: DeliveryRecord, attempt: number, at: string): Promise<boolean> {
    return this.conditionally(
      new UpdateCommand({
        TableName: this.tableName,
        Key: deliveryKey(delivery.eventId, delivery.id),
        UpdateExpression: 'SET #status = :failed, nextAttemptAt = :none, updatedAt = :at REMOVE heldAttempt, gsi6pk, gsi6sk, firstAttemptStartedAt',
        ConditionExpression: '#status = :pending AND attemptCount = :previous',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':failed': 'FAILED', ':none': null, ':at': at, ':pending': 'PENDING', ':previous': attempt - 1 },
      }),
    );
  }

  async recentAttempts(delivery: Pick<DeliveryRecord, 'eventId' | 'id'>, limit: number): Promise<{ attempts: AttemptRecord[]; omitted: boolean }> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: deliveryKey(delivery.eventId, delivery.id), ConsistentRead: true }));
    const onItem = Object.entries(Item ?? {})
      .filter(([name]) => attemptAttributePattern.test(name))
      .map(([, value]) => attemptOf(value));
    // Attempts recorded before they moved onto the delivery item are items of their own until their
    // TTL removes them; the item's count says whether any are missing from it.
    const recordedCount = Item ? deliveryOf(Item).attemptCount : 0;
    const earlier = onItem.length < recordedCount ? await this.attemptItemsOfEarlierLayout(delivery.id) : [];
    const onItemNumbers = new Set(onItem.map((attempt) => attempt.number));
    const attempts = [...onItem, ...earlier.filter((attempt) => !onItemNumbers.has(attempt.number))].sort((a, b) => a.number - b.number);
    return { attempts: attempts.slice(-limit), omitted: attempts.length > limit };
  }

  /**
   * One Query of the subscription's deliveries index (gsi1) with the conditions as its filter: a
   * delivery may end long after its event (retries, a pause), so no key range on `occurredAt` can
   * bound it; the index holds at most the 90 days of retention.
   */
  async failedSince(subscriptionId: string, query: { since: string; limit: number; now: Date }): Promise<{ deliveries: DeliveryRecord[]; hasMore: boolean }> {
    const deliveries: DeliveryRecord[] = [];
    const pages = queryPages(this.client, {
      TableName: this.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :partition',
      FilterExpression: '#status = :failed AND #updatedAt >= :since AND attribute_not_exists(recoveredBy) AND #expiresAt > :now',
      ExpressionAttributeNames: { ...deliveryProjection.names, '#status': 'status', '#updatedAt': 'updatedAt', '#expiresAt': 'expiresAt' },
      ExpressionAttributeValues: {
        ':partition': `SUB#${subscriptionId}#DELIVERIES`,
        ':failed': 'FAILED',
        ':since': query.since,
        ':now': Math.floor(query.now.getTime() / 1000),
      },
      ProjectionExpression: deliveryProjection.expression,
    });
    for await (const page of pages) {
      deliveries.push(...(page.Items ?? []).map(deliveryOf));
      if (deliveries.length > query.limit) break;
    }
    return { deliveries: deliveries.slice(0, query.limit), hasMore: deliveries.length > query.limit };
  }

  async markRecovered(failed: Pick<DeliveryRecord, 'eventId' | 'id'>, recoveryId: string): Promise<boolean> {
    return this.conditionally(
      new UpdateCommand({
        TableName: this.tableName,
        Key: deliveryKey(failed.eventId, failed.id),
        UpdateExpression: 'SET recoveredBy = :recovery',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(recoveredBy)',
        ExpressionAttributeValues: { ':recovery': recoveryId },
      }),
    );
  }

  /** The attempt items of the layout before `attempt<nnnn>` attributes: `DLV#<dlv>` / `ATTEMPT#<nnnn>`. */
  private async attemptItemsOfEarlierLayout(deliveryId: string): Promise<AttemptRecord[]> {
    const items = await queryAllItems(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': `DLV#${deliveryId}`, ':prefix': 'ATTEMPT#' },
      ConsistentRead: true,
    });
    return items.map(attemptOf);
  }

  /** Sends a conditional write; false when its condition did not hold. */
  private async conditionally(command: PutCommand | UpdateCommand): Promise<boolean> {
    return (await this.sentIfConditionHolds(command)) !== undefined;
  }

  /** The write's output, or undefined when its condition did not hold (any other failure is thrown). */
  private async sentIfConditionHolds(command: PutCommand | UpdateCommand): Promise<{ Attributes?: Record<string, unknown> } | undefined> {
    try {
      return await this.client.send(command as PutCommand);
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  }
}
