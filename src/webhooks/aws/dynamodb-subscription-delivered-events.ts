import type { DynamoDBDocumentClient, QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { eventTypes, type EventType } from '../../events/event-envelope.ts';
import { queryPages } from '../../infrastructure/dynamodb-queries.ts';
import { deliveryExpiresAt, type DeliveryRecord } from '../delivery-records.ts';
import type { DeliveredEventEntry, SubscriptionDeliveredEvents } from '../event-history.ts';
import { inFlightClaimsPartition, inFlightDeliveriesOf } from './dynamodb-delivery-store.ts';

const entrySchema = z.object({ eventId: z.string(), eventType: z.enum(eventTypes), occurredAt: z.string() });

// Sorts past "#<evt>#<dlv>" for any ids, so an inclusive `to` keeps every delivery at that instant.
const upperBoundSuffix = '#~';
const entryAttributes = Object.keys(entrySchema.shape);

/**
 * How far back claims with deliveries in flight are read: a fan-out makes its first attempts within
 * one invocation (the consumer's 60 s timeout), and its settles write them into the deliveries index.
 */
const inFlightListedForMilliseconds = 60_000;

/**
 * The events delivered to one subscription, from its deliveries index (gsi1 `SUB#<sub>#DELIVERIES`,
 * `<occurredAt>#<evt>#<dlv>`): a Query reading three attributes per delivery, `from`/`to` as a key
 * range, the types and expiry as a filter. It reads the subscription's deliveries in the window (at most
 * 90 days of them, the retention) to count distinct events exactly.
 */
export class DynamoSubscriptionDeliveredEvents implements SubscriptionDeliveredEvents {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async entries(workspaceId: string, subscriptionId: string, filter: { from?: string; to?: string; eventTypes: readonly EventType[] }): Promise<DeliveredEventEntry[]> {
    if (filter.eventTypes.length === 0) return [];
    const names: Record<string, string> = { '#pk': 'gsi1pk', '#expiresAt': 'expiresAt', '#eventType': 'eventType' };
    entryAttributes.forEach((name, index) => (names[`#e${index}`] = name));
    const values: Record<string, unknown> = { ':pk': `SUB#${subscriptionId}#DELIVERIES`, ':now': Math.floor(this.now().getTime() / 1000) };
    filter.eventTypes.forEach((type, index) => (values[`:type${index}`] = type));
    let keyCondition = '#pk = :pk';
    if (filter.from !== undefined || filter.to !== undefined) names['#sk'] = 'gsi1sk';
    if (filter.from !== undefined && filter.to !== undefined) {
      keyCondition += ' AND #sk BETWEEN :from AND :to';
      Object.assign(values, { ':from': filter.from, ':to': `${filter.to}${upperBoundSuffix}` });
    } else if (filter.from !== undefined) {
      keyCondition += ' AND #sk >= :from';
      values[':from'] = filter.from;
    } else if (filter.to !== undefined) {
      keyCondition += ' AND #sk <= :to';
      values[':to'] = `${filter.to}${upperBoundSuffix}`;
    }
    const input: QueryCommandInput = {
      TableName: this.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: keyCondition,
      FilterExpression: `#expiresAt > :now AND #eventType IN (${filter.eventTypes.map((_, index) => `:type${index}`).join(', ')})`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ProjectionExpression: entryAttributes.map((_, index) => `#e${index}`).join(', '),
      ScanIndexForward: true,
    };
    const [stored, inFlight] = await Promise.all([this.storedEntries(input), this.inFlightEntries(workspaceId, subscriptionId, filter)]);
    if (inFlight.length === 0) return stored;
    // A delivery both stored and still listed in flight shows twice, side by side: the page drops repeats.
    const key = (entry: DeliveredEventEntry) => `${entry.occurredAt}#${entry.eventId}`;
    return [...stored, ...inFlight].sort((a, b) => key(a).localeCompare(key(b)));
  }

  private async storedEntries(input: QueryCommandInput): Promise<DeliveredEventEntry[]> {
    const entries: DeliveredEventEntry[] = [];
    for await (const page of queryPages(this.client, input)) {
      for (const item of page.Items ?? []) entries.push(entrySchema.parse(item));
    }
    return entries;
  }

  /** The subscription's deliveries that recent first fan-outs hold in flight, not yet in the deliveries index. */
  private async inFlightEntries(workspaceId: string, subscriptionId: string, filter: { from?: string; to?: string; eventTypes: readonly EventType[] }): Promise<DeliveredEventEntry[]> {
    const now = this.now();
    const entries: DeliveredEventEntry[] = [];
    const pages = queryPages(this.client, {
      TableName: this.tableName,
      IndexName: 'gsi5',
      KeyConditionExpression: 'gsi5pk = :partition AND gsi5sk >= :since',
      ExpressionAttributeValues: { ':partition': inFlightClaimsPartition(workspaceId), ':since': new Date(now.getTime() - inFlightListedForMilliseconds).toISOString() },
      ProjectionExpression: 'inFlight',
    });
    const listed = (delivery: DeliveryRecord) =>
      delivery.subscriptionId === subscriptionId &&
      filter.eventTypes.includes(delivery.eventType as EventType) &&
      (filter.from === undefined || delivery.occurredAt >= filter.from) &&
      (filter.to === undefined || delivery.occurredAt <= filter.to) &&
      deliveryExpiresAt(delivery) > Math.floor(now.getTime() / 1000);
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        for (const delivery of inFlightDeliveriesOf(item).filter(listed)) entries.push(entrySchema.parse(delivery));
      }
    }
    return entries;
  }
}
