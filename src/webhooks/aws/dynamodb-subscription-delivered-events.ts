import type { DynamoDBDocumentClient, QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { eventTypes, type EventType } from '../../events/event-envelope.ts';
import { queryPages } from '../../infrastructure/dynamodb-queries.ts';
import type { DeliveredEventEntry, SubscriptionDeliveredEvents } from '../event-history.ts';

const entrySchema = z.object({ eventId: z.string(), eventType: z.enum(eventTypes), occurredAt: z.string() });

// Sorts past "#<evt>#<dlv>" for any ids, so an inclusive `to` keeps every delivery at that instant.
const upperBoundSuffix = '#~';
const entryAttributes = Object.keys(entrySchema.shape);

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

  async entries(subscriptionId: string, filter: { from?: string; to?: string; eventTypes: readonly EventType[] }): Promise<DeliveredEventEntry[]> {
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
    const entries: DeliveredEventEntry[] = [];
    for await (const page of queryPages(this.client, input)) {
      for (const item of page.Items ?? []) entries.push(entrySchema.parse(item));
    }
    return entries;
  }
}
