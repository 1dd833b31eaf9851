import { GetCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { queryPages } from '../../infrastructure/dynamodb-queries.ts';
import { pageWindow } from '../../platform/page-window.ts';
import { eventTypes, type EventEnvelope } from '../event-envelope.ts';
import type { EventLister, EventListQuery, EventListResult, EventSummary } from '../event-lister.ts';
import { eventKey, workspaceEventsPartition } from './event-keys.ts';

/** Where an event whose data was too large for its item keeps it (the files bucket). */
export interface EventPayloadReader {
  get(objectKey: string): Promise<string>;
}

// Sorts past "#<id>" for any id, so an inclusive `to` bound keeps every event at that instant.
const upperBoundSuffix = '#~';
const summarySchema = z.object({ eventId: z.string(), eventType: z.enum(eventTypes), occurredAt: z.string(), apiVersion: z._default(z.literal('v1'), 'v1') });
const summaryAttributes = Object.keys(summarySchema.shape);
/**
 * The event item as `get` reads it: `dataJson` since events hold any JSON value, `data` (a map) in
 * events recorded before, `dataObjectKey` when the data was too large for the item.
 */
const eventItemSchema = z.object({
  workspaceId: z.string(),
  expiresAt: z.number(),
  dataJson: z.optional(z.string()),
  data: z.optional(z.record(z.string(), z.unknown())),
  dataObjectKey: z.optional(z.string()),
});
/** `data` as the envelope carries it: any JSON object. */
const eventDataSchema = z.record(z.string(), z.unknown());

/**
 * A workspace's events by occurredAt (gsi1, WS#<ws>#EVENTS), DynamoDB Query only, with exact totals.
 * Totals are a COUNT over the same key range and filter, not a counter: TTL removes events without
 * telling anyone, so a counter would drift. Items whose `expiresAt` has passed but that TTL has not
 * removed yet (it may take days) are filtered out, so a list never shows an expired event.
 */
export class DynamoEventLister implements EventLister {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly payloads?: EventPayloadReader,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async list(workspaceId: string, query: EventListQuery): Promise<EventListResult> {
    if (query.eventTypes && query.eventTypes.length === 0) return { events: [], totalItems: 0 };
    let totalItems = 0;
    for await (const page of queryPages(this.client, { ...this.baseQuery(workspaceId, query, true), Select: 'COUNT' })) totalItems += page.Count ?? 0;
    const window = pageWindow(totalItems, query, query.sort === 'asc');
    if (!window) return { events: [], totalItems };
    const { skip, wanted, ascending, fromOtherEnd } = window;
    const base = this.baseQuery(workspaceId, query, ascending);
    let startKey: Record<string, unknown> | undefined;
    if (skip > 0) {
      startKey = await this.positionAfter(base, skip);
      if (!startKey) return { events: [], totalItems };
    }
    const events: EventSummary[] = [];
    const names = { ...base.ExpressionAttributeNames, ...Object.fromEntries(summaryAttributes.map((name, index) => [`#s${index}`, name])) };
    const pages = queryPages(this.client, {
      ...base,
      ExclusiveStartKey: startKey,
      ExpressionAttributeNames: names,
      ProjectionExpression: summaryAttributes.map((_, index) => `#s${index}`).join(', '),
    });
    for await (const page of pages) {
      for (const item of page.Items ?? []) if (events.length < wanted) events.push(summaryOf(item));
      if (events.length >= wanted) break;
    }
    return { events: fromOtherEnd ? events.reverse() : events, totalItems };
  }

  /** The recorded envelope with its `data` (from the payload store when it was too large for the item). */
  async get(workspaceId: string, eventId: string): Promise<EventEnvelope | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: eventKey(eventId) }));
    if (!Item) return undefined;
    const stored = eventItemSchema.parse(Item);
    if (stored.workspaceId !== workspaceId || stored.expiresAt <= Math.floor(this.now().getTime() / 1000)) return undefined;
    let data = stored.dataJson !== undefined ? eventDataSchema.parse(JSON.parse(stored.dataJson)) : stored.data;
    if (data === undefined && stored.dataObjectKey !== undefined) {
      if (!this.payloads) throw new Error(`Event ${eventId} keeps its data in the payload store, and none is configured.`);
      data = eventDataSchema.parse(JSON.parse(await this.payloads.get(stored.dataObjectKey)));
    }
    return { ...summaryOf(Item), data: data ?? {} };
  }

  private baseQuery(workspaceId: string, query: EventListQuery, ascending: boolean): QueryCommandInput {
    const names: Record<string, string> = { '#pk': 'gsi1pk', '#expiresAt': 'expiresAt' };
    if (query.from !== undefined || query.to !== undefined) names['#sk'] = 'gsi1sk';
    const values: Record<string, unknown> = { ':pk': workspaceEventsPartition(workspaceId), ':now': Math.floor(this.now().getTime() / 1000) };
    let keyCondition = '#pk = :pk';
    if (query.from !== undefined && query.to !== undefined) {
      keyCondition += ' AND #sk BETWEEN :from AND :to';
      values[':from'] = query.from;
      values[':to'] = `${query.to}${upperBoundSuffix}`;
    } else if (query.from !== undefined) {
      keyCondition += ' AND #sk >= :from';
      values[':from'] = query.from;
    } else if (query.to !== undefined) {
      keyCondition += ' AND #sk <= :to';
      values[':to'] = `${query.to}${upperBoundSuffix}`;
    }
    const filters = ['#expiresAt > :now'];
    if (query.eventTypes) {
      names['#eventType'] = 'eventType';
      query.eventTypes.forEach((eventType, index) => (values[`:type${index}`] = eventType));
      filters.push(`#eventType IN (${query.eventTypes.map((_, index) => `:type${index}`).join(', ')})`);
    }
    return {
      TableName: this.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: keyCondition,
      FilterExpression: filters.join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ScanIndexForward: ascending,
    };
  }

  /** The key to continue after `skip` matching events, reading only key attributes to get there. */
  private async positionAfter(base: QueryCommandInput, skip: number): Promise<Record<string, unknown> | undefined> {
    let seen = 0;
    const pages = queryPages(this.client, {
      ...base,
      ExpressionAttributeNames: { ...base.ExpressionAttributeNames, '#indexPk': 'gsi1pk', '#indexSk': 'gsi1sk' },
      ProjectionExpression: 'pk, sk, #indexPk, #indexSk',
    });
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        seen += 1;
        if (seen === skip) return { pk: item.pk, sk: item.sk, gsi1pk: item.gsi1pk, gsi1sk: item.gsi1sk };
      }
    }
    return undefined;
  }
}

function summaryOf(item: Record<string, unknown>): EventSummary {
  return summarySchema.parse(item);
}
