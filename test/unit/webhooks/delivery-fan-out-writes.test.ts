import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, BatchWriteCommand, DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AttemptRecord, DeliveryRecord } from '../../../src/webhooks/delivery-records.ts';
import { DynamoDeliveryPurge } from '../../../src/webhooks/aws/dynamodb-delivery-purge.ts';
import { DynamoDeliveryStore, fanOutWriteWindowMilliseconds } from '../../../src/webhooks/aws/dynamodb-delivery-store.ts';
import { FanOutInProgress } from '../../../src/webhooks/delivery-store.ts';

// The fan-out's deliveries written in one BatchWriteItem under a claim on the event (delivery-store.ts,
// createAll): a synthetic event with three subscriptions, against a mocked table.

const documents = mockClient(DynamoDBDocumentClient);

beforeEach(() => documents.reset());
afterEach(() => vi.restoreAllMocks());

const conditionalFailure = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: { httpStatusCode: 400 } });
const store = () => new DynamoDeliveryStore(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })), 'records');

const eventId = 'evt_01JZ0000000000000000000009';
const deliveryOf = (index: number, changes: Partial<DeliveryRecord> = {}): DeliveryRecord => ({
  id: `dlv_01JZ00000000000000000000F${index}`,
  eventId,
  subscriptionId: `sub_01JZ00000000000000000000F${index}`,
  workspaceId: 'ws_fan',
  eventType: 'workflow.run.completed',
  occurredAt: '2026-05-01T08:00:00.000Z',
  trigger: 'automatic',
  status: 'PENDING',
  attemptCount: 0,
  maxAttempts: 6,
  createdAt: '2026-05-01T08:00:01.000Z',
  updatedAt: '2026-05-01T08:00:01.000Z',
  lastAttemptAt: null,
  nextAttemptAt: '2026-05-01T08:00:01.000Z',
  lastResponseStatus: null,
  firstAttemptStartedAt: '2026-05-01T08:00:01.000Z',
  ...changes,
});
const records = [deliveryOf(1), deliveryOf(2), deliveryOf(3)];
/** Delivery 2 as another fan-out left it: written, attempt 1 settled. */
const progressed = deliveryOf(2, { attemptCount: 1, status: 'SUCCEEDED', lastResponseStatus: 200, firstAttemptStartedAt: undefined });
/** The claim item as an earlier fan-out of the event left it (handed back): what a later claim's write returns. */
const earlierClaim = { Attributes: { pk: `EVENT#${eventId}`, sk: 'FANOUT', expiresAt: 1_785_000_000 } };
const storedItem = (record: DeliveryRecord) => ({ pk: `EVENT#${eventId}`, sk: `DELIVERY#${record.id}`, ...JSON.parse(JSON.stringify(record)) });


/** Attempt 1 of a delivery as its POST ended: a 200. */
const completedOf = (record: DeliveryRecord): AttemptRecord => ({
  number: 1,
  startedAt: '2026-05-01T08:00:01.500Z',
  durationMs: 12,
  requestHeaders: { 'X-Paperflow-Signature': '[redacted]' },
  responseStatus: 200,
  responseBody: `ok ${record.id}`,
  error: null,
  outcome: 'succeeded',
});
const settlement = { status: 'SUCCEEDED' as const, lastAttemptAt: '2026-05-01T08:00:01.500Z', lastResponseStatus: 200, nextAttemptAt: null, updatedAt: '2026-05-01T08:00:02.000Z' };
const settlementsOf = (deliveries: DeliveryRecord[]) => deliveries.map((delivery) => ({ delivery, completed: completedOf(delivery), settlement }));

describe('DynamoDeliveryStore.createAll', () => {
  it('claims the event after an earlier fan-out, reads its deliveries consistently and writes only the missing ones in one batch', async () => {
    documents.on(UpdateCommand).resolves(earlierClaim);
    documents.on(BatchGetCommand).resolves({ Responses: { records: [storedItem(progressed)] } });
    documents.on(BatchWriteCommand).resolves({});

    const created = (await store().createAll(records)).deliveries;

    expect(created.map(({ current, createdNow }) => [current.id, current.attemptCount, createdNow])).toEqual([
      [records[0]!.id, 0, true],
      [records[1]!.id, 1, false],
      [records[2]!.id, 0, true],
    ]);
    const claim = documents.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(claim.Key).toEqual({ pk: `EVENT#${eventId}`, sk: 'FANOUT' });
    expect(claim.ConditionExpression).toBe('attribute_not_exists(claimedUntil) OR claimedUntil < :now');
    expect(claim.ReturnValues).toBe('ALL_OLD');
    expect(documents.commandCalls(BatchGetCommand)[0]!.args[0].input.RequestItems!.records).toMatchObject({ ConsistentRead: true });
    const writes = documents.commandCalls(BatchWriteCommand);
    expect(writes).toHaveLength(1);
    const puts = writes[0]!.args[0].input.RequestItems!.records!.map((request) => request.PutRequest!.Item!);
    expect(puts.map((item) => item.sk)).toEqual([`DELIVERY#${records[0]!.id}`, `DELIVERY#${records[2]!.id}`]);
    expect(puts[0]).toMatchObject({ pk: `EVENT#${eventId}`, gsi1pk: `SUB#${records[0]!.subscriptionId}#DELIVERIES`, expiresAt: Date.parse(records[0]!.occurredAt) / 1000 + 90 * 86_400 });
    expect(documents.commandCalls(PutCommand)).toHaveLength(0);
  });

  it('without the claim, refuses to write while some deliveries are missing: another fan-out may be writing them', async () => {
    documents.on(UpdateCommand).rejects(conditionalFailure());
    documents.on(BatchGetCommand).resolves({ Responses: { records: [storedItem(progressed)] } });

    await expect(store().createAll(records)).rejects.toBeInstanceOf(FanOutInProgress);
    expect(documents.commandCalls(BatchWriteCommand)).toHaveLength(0);
  });

  it('without the claim, answers the stored deliveries when they are all written, writing nothing', async () => {
    documents.on(UpdateCommand).rejects(conditionalFailure());
    documents.on(BatchGetCommand).resolves({ Responses: { records: [storedItem(progressed)] } });

    const created = (await store().createAll([deliveryOf(2)])).deliveries;

    expect(created).toEqual([{ current: progressed, createdNow: false }]);
    expect(documents.commandCalls(BatchWriteCommand)).toHaveLength(0);
  });

  it('past its write window, renews its own claim before writing, and writes nothing once the claim was taken over', async () => {
    let clock = 1_000;
    vi.spyOn(performance, 'now').mockImplementation(() => clock);
    documents.on(BatchGetCommand).callsFake(async () => {
      clock += fanOutWriteWindowMilliseconds + 1;
      return { Responses: { records: [] } };
    });
    documents.on(BatchWriteCommand).resolves({});
    // Renewed: the claim was still this fan-out's.
    documents.on(UpdateCommand).resolves(earlierClaim);
    expect((await store().createAll(records)).deliveries.every(({ createdNow }) => createdNow)).toBe(true);
    const [claim, renewal] = documents.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(renewal!.ConditionExpression).toBe('claimToken = :token');
    expect(renewal!.ExpressionAttributeValues![':token']).toBe(claim!.ExpressionAttributeValues![':token']);
    expect(documents.commandCalls(BatchWriteCommand)).toHaveLength(1);

    // Taken over: another fan-out's claim replaced the token.
    documents.reset();
    documents.on(BatchGetCommand).callsFake(async () => {
      clock += fanOutWriteWindowMilliseconds + 1;
      return { Responses: { records: [] } };
    });
    documents.on(UpdateCommand).resolvesOnce(earlierClaim).rejects(conditionalFailure());
    await expect(store().createAll(records)).rejects.toBeInstanceOf(FanOutInProgress);
    expect(documents.commandCalls(BatchWriteCommand)).toHaveLength(0);
  });

  it('reads nothing when its claim created the claim item: no fan-out of the event wrote a delivery before it', async () => {
    documents.on(UpdateCommand).resolves({});
    documents.on(BatchWriteCommand).resolves({});
    // Attempt 1 queued, not sent by the fan-out: the deliveries are written before anything else.
    const queued = records.map(({ firstAttemptStartedAt: _started, ...record }) => record);

    const created = (await store().createAll(queued)).deliveries;

    expect(created.every(({ createdNow }) => createdNow)).toBe(true);
    expect(documents.commandCalls(BatchGetCommand)).toHaveLength(0);
    const puts = documents.commandCalls(BatchWriteCommand)[0]!.args[0].input.RequestItems!.records!;
    expect(puts.map((request) => request.PutRequest!.Item!.id)).toEqual(records.map(({ id }) => id));
    expect(documents.commandCalls(UpdateCommand)[0]!.args[0].input.UpdateExpression).not.toContain('inFlight');
  });

  it('reads the deliveries only once the claim has answered, so the read sees every earlier holder\'s writes', async () => {
    let claimAnswered = false;
    let readBeforeClaimAnswered = false;
    documents.on(UpdateCommand).callsFake(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      claimAnswered = true;
      return earlierClaim;
    });
    documents.on(BatchGetCommand).callsFake(async () => {
      readBeforeClaimAnswered = !claimAnswered;
      return { Responses: { records: [] } };
    });
    documents.on(BatchWriteCommand).resolves({});

    await store().createAll(records);

    expect(documents.commandCalls(BatchGetCommand)).toHaveLength(1);
    expect(readBeforeClaimAnswered).toBe(false);
  });

  it('two fan-outs claim with different tokens', async () => {
    documents.on(UpdateCommand).resolves({});
    documents.on(BatchGetCommand).resolves({ Responses: { records: [] } });
    documents.on(BatchWriteCommand).resolves({});
    await store().createAll(records);
    await store().createAll(records);
    const tokens = documents.commandCalls(UpdateCommand).map((call) => call.args[0].input.ExpressionAttributeValues![':token']);
    expect(new Set(tokens).size).toBe(2);
  });

  it('without the claim, refuses while the holder may still be making the first attempts of the stored deliveries', async () => {
    documents.on(UpdateCommand).rejects(conditionalFailure());
    documents.on(BatchGetCommand).resolves({ Responses: { records: [storedItem(deliveryOf(1))] } });

    await expect(store().createAll([deliveryOf(1)])).rejects.toBeInstanceOf(FanOutInProgress);
    expect(documents.commandCalls(BatchWriteCommand)).toHaveLength(0);
  });

  it('hands its claim back on its own token, and never fails doing so', async () => {
    documents.on(UpdateCommand).resolvesOnce({}).rejects(conditionalFailure());
    documents.on(BatchGetCommand).resolves({ Responses: { records: [] } });
    documents.on(BatchWriteCommand).resolves({});
    const fanOut = await store().createAll(records);

    await fanOut.handBack();

    const [claim, handBack] = documents.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(handBack).toMatchObject({ Key: { pk: `EVENT#${eventId}`, sk: 'FANOUT' }, UpdateExpression: 'REMOVE claimedUntil, claimToken', ConditionExpression: 'claimToken = :token' });
    expect(handBack!.ExpressionAttributeValues![':token']).toBe(claim!.ExpressionAttributeValues![':token']);
  });

  it('writes nothing for an event without matching subscriptions', async () => {
    expect((await store().createAll([])).deliveries).toEqual([]);
    expect(documents.calls()).toHaveLength(0);
  });
});

describe('DeliveryPurge', () => {
  it('removes the fan-out claim with the deliveries of the event', async () => {
    documents.on(QueryCommand).resolves({ Items: [] });
    documents.on(BatchWriteCommand).resolves({});
    documents.on(DeleteCommand).resolves({});

    await new DynamoDeliveryPurge(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })), 'records').purgeOfEvent(eventId);

    const deletes = documents.commandCalls(BatchWriteCommand).flatMap((call) => call.args[0].input.RequestItems!.records!);
    expect(deletes).toContainEqual({ DeleteRequest: { Key: { pk: `EVENT#${eventId}`, sk: 'FANOUT' } } });
  });
});

describe('DynamoDeliveryStore: the fan-out\'s own attempts settled under its claim', () => {

  async function claimedFanOut() {
    documents.on(BatchGetCommand).resolves({ Responses: { records: [] } });
    documents.on(BatchWriteCommand).resolves({});
    // After an earlier fan-out of the event: the deliveries are written before their attempts.
    documents.on(UpdateCommand).resolves(earlierClaim);
    const fanOut = await store().createAll(records);
    documents.resetHistory();
    return fanOut;
  }

  it('writes the settled deliveries whole in one BatchWriteItem: the attempt record, the settlement, no in-flight mark', async () => {
    const fanOut = await claimedFanOut();

    expect(await fanOut.settleOwnAttempts(settlementsOf(records))).toEqual([true, true, true]);

    const writes = documents.commandCalls(BatchWriteCommand);
    expect(writes).toHaveLength(1);
    expect(documents.commandCalls(UpdateCommand)).toHaveLength(0);
    const items = writes[0]!.args[0].input.RequestItems!.records!.map((request) => request.PutRequest!.Item!);
    expect(items).toHaveLength(3);
    expect(items[0]).toMatchObject({
      pk: `EVENT#${eventId}`,
      sk: `DELIVERY#${records[0]!.id}`,
      gsi1pk: `SUB#${records[0]!.subscriptionId}#DELIVERIES`,
      status: 'SUCCEEDED',
      attemptCount: 1,
      lastResponseStatus: 200,
      nextAttemptAt: null,
      updatedAt: settlement.updatedAt,
      attempt0001: completedOf(records[0]!),
    });
    expect(items[0]).not.toHaveProperty('firstAttemptStartedAt');
  });

  it('settles each conditionally when the batch fails, counting an attempt the failed batch did write as its own', async () => {
    const fanOut = await claimedFanOut();
    documents.on(BatchWriteCommand).rejects(new Error('connection reset'));
    documents.on(UpdateCommand).resolvesOnce({}).rejectsOnce(conditionalFailure()).resolves({});

    expect(await fanOut.settleOwnAttempts(settlementsOf(records))).toEqual([true, false, true]);

    const updates = documents.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(updates).toHaveLength(3);
    expect(updates[0]!.ConditionExpression).toBe('(#status = :pending AND attemptCount = :previous) OR (attemptCount = :attempt AND #attempt.startedAt = :startedAt)');
    expect(updates[0]!.ExpressionAttributeValues).toMatchObject({ ':startedAt': '2026-05-01T08:00:01.500Z', ':attempt': 1, ':previous': 0 });
  });

  /** A claimed fan-out past its write window, whose claim renewal will find it taken over. */
  async function fanOutWhoseClaimWasTakenOver() {
    let clock = 1_000;
    vi.spyOn(performance, 'now').mockImplementation(() => clock);
    const fanOut = await claimedFanOut();
    clock += fanOutWriteWindowMilliseconds + 1;
    documents.on(UpdateCommand).rejectsOnce(conditionalFailure()).resolves({});
    return fanOut;
  }

  it('once a renewal found the claim taken over, settles every later batch conditionally too, without renewing again', async () => {
    const fanOut = await fanOutWhoseClaimWasTakenOver();
    await fanOut.settleOwnAttempts(settlementsOf([records[0]!]));
    // Not resetHistory: sinon counts the calls its once-behaviours answer by the history.
    const updatesBefore = documents.commandCalls(UpdateCommand).length;

    expect(await fanOut.settleOwnAttempts(settlementsOf([records[1]!, records[2]!]))).toEqual([true, true]);

    const updates = documents.commandCalls(UpdateCommand).slice(updatesBefore).map((call) => call.args[0].input);
    expect(updates.map((update) => update.Key)).toEqual([
      { pk: `EVENT#${eventId}`, sk: `DELIVERY#${records[1]!.id}` },
      { pk: `EVENT#${eventId}`, sk: `DELIVERY#${records[2]!.id}` },
    ]);
    expect(documents.commandCalls(BatchWriteCommand)).toHaveLength(0);
  });

  it('past its write window renews the claim first; taken over, it settles each conditionally instead', async () => {
    const fanOut = await fanOutWhoseClaimWasTakenOver();

    expect(await fanOut.settleOwnAttempts(settlementsOf(records))).toEqual([true, true, true]);

    const [renewal, ...settles] = documents.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(renewal!.ConditionExpression).toBe('claimToken = :token');
    expect(settles).toHaveLength(3);
    expect(documents.commandCalls(BatchWriteCommand)).toHaveLength(0);
  });
  /** `count` deliveries of another event, as a second fan-out of the same consumer invocation writes them. */
  const deliveriesOfEvent = (otherEventId: string, count: number) =>
    Array.from({ length: count }, (_, index) =>
      deliveryOf(index, { eventId: otherEventId, id: `dlv_01JZ0000000000000000000${otherEventId.slice(-1)}${String(index).padStart(2, '0')}` }),
    );

  it('writes the settles of the fan-outs it serves together: two events, one BatchWriteItem, each under its own claim', async () => {
    const shared = store();
    documents.on(BatchGetCommand).resolves({ Responses: { records: [] } });
    documents.on(BatchWriteCommand).resolves({});
    documents.on(UpdateCommand).resolves(earlierClaim);
    const other = deliveriesOfEvent('evt_01JZ0000000000000000000008', 2);
    const [first, second] = [await shared.createAll(records), await shared.createAll(other)];
    documents.resetHistory();

    const settled = await Promise.all([first.settleOwnAttempts(settlementsOf(records)), second.settleOwnAttempts(settlementsOf(other))]);

    expect(settled).toEqual([
      [true, true, true],
      [true, true],
    ]);
    const writes = documents.commandCalls(BatchWriteCommand);
    expect(writes).toHaveLength(1);
    expect(writes[0]!.args[0].input.RequestItems!.records!.map((request) => request.PutRequest!.Item!.id)).toEqual([...records, ...other].map(({ id }) => id));
    expect(documents.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('packs whole fan-outs into requests of at most 25 items, sent side by side', async () => {
    const shared = store();
    documents.on(BatchGetCommand).resolves({ Responses: { records: [] } });
    documents.on(BatchWriteCommand).resolves({});
    documents.on(UpdateCommand).resolves(earlierClaim);
    const events = ['evt_01JZ0000000000000000000005', 'evt_01JZ0000000000000000000006', 'evt_01JZ0000000000000000000007'].map((id) => deliveriesOfEvent(id, 10));
    const fanOuts = await Promise.all(events.map((deliveries) => shared.createAll(deliveries)));
    documents.resetHistory();

    await Promise.all(fanOuts.map((fanOut, index) => fanOut.settleOwnAttempts(settlementsOf(events[index]!))));

    const requests = documents.commandCalls(BatchWriteCommand).map((call) => call.args[0].input.RequestItems!.records!.map((request) => request.PutRequest!.Item!.eventId));
    expect(requests.map((eventIds) => eventIds.length)).toEqual([20, 10]);
    expect(requests[1]).toEqual(Array(10).fill('evt_01JZ0000000000000000000007'));
  });

  it('settles conditionally only the fan-out whose claim was taken over; the other fan-out\'s settles still go in the batch', async () => {
    let clock = 1_000;
    vi.spyOn(performance, 'now').mockImplementation(() => clock);
    const shared = store();
    documents.on(BatchGetCommand).resolves({ Responses: { records: [] } });
    documents.on(BatchWriteCommand).resolves({});
    documents.on(UpdateCommand).resolves(earlierClaim);
    const takenOver = await shared.createAll(records);
    clock += fanOutWriteWindowMilliseconds + 1;
    const other = deliveriesOfEvent('evt_01JZ0000000000000000000008', 2);
    const fresh = await shared.createAll(other);
    // The first fan-out's renewal finds its claim taken over; the settles after it succeed.
    documents.on(UpdateCommand).rejectsOnce(conditionalFailure()).resolves({});
    documents.resetHistory();

    const settled = await Promise.all([takenOver.settleOwnAttempts(settlementsOf(records)), fresh.settleOwnAttempts(settlementsOf(other))]);

    expect(settled).toEqual([
      [true, true, true],
      [true, true],
    ]);
    const written = documents.commandCalls(BatchWriteCommand).flatMap((call) => call.args[0].input.RequestItems!.records!.map((request) => request.PutRequest!.Item!.id));
    expect(written).toEqual(other.map(({ id }) => id));
    const updates = documents.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(updates[0]!.ConditionExpression).toBe('claimToken = :token');
    expect(updates.slice(1).map((update) => update.Key)).toEqual(records.map(({ id }) => ({ pk: `EVENT#${eventId}`, sk: `DELIVERY#${id}` })));
  });
});

describe("DynamoDeliveryStore: an event's first fan-out writes each delivery once, by its settle", () => {

  /** The event's first fan-out: its claim created the claim item. */
  async function firstFanOut() {
    documents.on(UpdateCommand).resolves({});
    documents.on(BatchWriteCommand).resolves({});
    const fanOut = await store().createAll(records);
    const claim = documents.commandCalls(UpdateCommand)[0]!.args[0].input;
    documents.resetHistory();
    return { fanOut, claim };
  }

  it('writes nothing before the POSTs: the claim lists the deliveries in flight, and the settle is each delivery\'s one write', async () => {
    const { fanOut, claim } = await firstFanOut();

    expect(claim.UpdateExpression).toContain('inFlight = if_not_exists(inFlight, :inFlight)');
    expect(Object.keys(claim.ExpressionAttributeValues![':inFlight'])).toEqual(records.map(({ id }) => id));
    expect(claim.ExpressionAttributeValues![':inFlight'][records[0]!.id]).toMatchObject({ id: records[0]!.id, status: 'PENDING', firstAttemptStartedAt: records[0]!.firstAttemptStartedAt });
    // Listed for the subscriptions' event lists by the workspace and the time of the first claim.
    expect(claim.UpdateExpression).toContain('gsi5pk = if_not_exists(gsi5pk, :inFlightClaims), gsi5sk = if_not_exists(gsi5sk, :claimedAt)');
    expect(claim.ExpressionAttributeValues).toMatchObject({ ':inFlightClaims': 'WS#ws_fan#DELIVERING', ':claimedAt': expect.stringMatching(new RegExp(`^\\d{4}-.*Z#${eventId}$`)) });
    expect(fanOut.deliveries.every(({ createdNow }) => createdNow)).toBe(true);

    expect(await fanOut.settleOwnAttempts(settlementsOf(records))).toEqual([true, true, true]);

    const writes = documents.commandCalls(BatchWriteCommand);
    expect(writes).toHaveLength(1);
    const items = writes[0]!.args[0].input.RequestItems!.records!.map((request) => request.PutRequest!.Item!);
    expect(items.map((item) => [item.sk, item.status, item.attemptCount, item.gsi1pk])).toEqual(
      records.map((record) => [`DELIVERY#${record.id}`, 'SUCCEEDED', 1, `SUB#${record.subscriptionId}#DELIVERIES`]),
    );
    expect(items[0]).not.toHaveProperty('firstAttemptStartedAt');
    expect(documents.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('when the batch fails, puts each settled delivery it never wrote on condition that none is there (or the failed batch put this very attempt)', async () => {
    const { fanOut } = await firstFanOut();
    documents.on(BatchWriteCommand).rejects(new Error('connection reset'));
    documents.on(PutCommand).resolvesOnce({}).rejectsOnce(conditionalFailure()).resolves({});

    expect(await fanOut.settleOwnAttempts(settlementsOf(records))).toEqual([true, false, true]);

    const puts = documents.commandCalls(PutCommand).map((call) => call.args[0].input);
    expect(puts).toHaveLength(3);
    expect(puts[0]!.ConditionExpression).toBe('attribute_not_exists(pk) OR (attemptCount = :attempt AND #attempt.startedAt = :startedAt)');
    expect(puts[0]!.Item).toMatchObject({ sk: `DELIVERY#${records[0]!.id}`, status: 'SUCCEEDED', attemptCount: 1, attempt0001: completedOf(records[0]!) });
    expect(documents.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('once its claim was taken over, leaves the attempts of deliveries it never wrote unrecorded and writes nothing: the new holder creates them', async () => {
    let clock = 1_000;
    vi.spyOn(performance, 'now').mockImplementation(() => clock);
    const { fanOut } = await firstFanOut();
    clock += fanOutWriteWindowMilliseconds + 1;
    documents.on(UpdateCommand).rejects(conditionalFailure());

    expect(await fanOut.settleOwnAttempts(settlementsOf(records))).toEqual([false, false, false]);

    expect(documents.commandCalls(UpdateCommand).map((call) => call.args[0].input.ConditionExpression)).toEqual(['claimToken = :token']);
    expect(documents.commandCalls(BatchWriteCommand)).toHaveLength(0);
    expect(documents.commandCalls(PutCommand)).toHaveLength(0);
  });

  it('writes a delivery as created before a hold or an end, once, and nothing for one already settled', async () => {
    const { fanOut } = await firstFanOut();

    await fanOut.writeCreation(records[0]!);
    await fanOut.writeCreation(records[0]!);
    const creations = documents.commandCalls(BatchWriteCommand).map((call) => call.args[0].input.RequestItems!.records!.map((request) => request.PutRequest!.Item!));
    expect(creations).toHaveLength(1);
    expect(creations[0]).toEqual([expect.objectContaining({ sk: `DELIVERY#${records[0]!.id}`, status: 'PENDING', attemptCount: 0 })]);
    await fanOut.settleOwnAttempts(settlementsOf([records[1]!]));
    documents.resetHistory();
    await fanOut.writeCreation(records[1]!);

    expect(documents.commandCalls(BatchWriteCommand)).toHaveLength(0);
  });

  it('a later fan-out creates, with the event\'s deliveries, those the earlier one left in flight on the claim item', async () => {
    const leftBehind = deliveryOf(4);
    documents.on(UpdateCommand).resolves({ Attributes: { ...earlierClaim.Attributes, inFlight: { [leftBehind.id]: JSON.parse(JSON.stringify(leftBehind)) } } });
    documents.on(BatchGetCommand).resolves({ Responses: { records: [storedItem(progressed)] } });
    documents.on(BatchWriteCommand).resolves({});

    const fanOut = await store().createAll(records);

    expect(fanOut.deliveries.map(({ current, createdNow }) => [current.id, createdNow])).toEqual([
      [records[0]!.id, true],
      [records[1]!.id, false],
      [records[2]!.id, true],
      [leftBehind.id, true],
    ]);
    const puts = documents.commandCalls(BatchWriteCommand)[0]!.args[0].input.RequestItems!.records!;
    expect(puts.map((request) => request.PutRequest!.Item!.id)).toEqual([records[0]!.id, records[2]!.id, leftBehind.id]);
  });

  it('reads a delivery in flight from the claim item, and lists it with the stored ones, a stored one winning', async () => {
    const inFlight = { [records[0]!.id]: JSON.parse(JSON.stringify(records[0]!)), [records[1]!.id]: JSON.parse(JSON.stringify(records[1]!)) };
    documents.on(GetCommand, { Key: { pk: `EVENT#${eventId}`, sk: `DELIVERY#${records[0]!.id}` } }).resolves({});
    documents.on(GetCommand, { Key: { pk: `EVENT#${eventId}`, sk: 'FANOUT' } }).resolves({ Item: { pk: `EVENT#${eventId}`, sk: 'FANOUT', inFlight } });
    documents.on(QueryCommand).resolves({
      Items: [storedItem(progressed), { sk: 'EVENT', id: eventId }, { sk: 'FANOUT', inFlight }],
    });

    expect(await store().get(eventId, records[0]!.id)).toMatchObject({ id: records[0]!.id, status: 'PENDING', attemptCount: 0, firstAttemptStartedAt: records[0]!.firstAttemptStartedAt });
    const listed = await store().listOfEvent(eventId);
    expect(listed.map((delivery) => [delivery.id, delivery.attemptCount])).toEqual([
      [records[0]!.id, 0],
      [progressed.id, 1],
    ]);
  });
});
