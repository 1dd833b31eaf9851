import { encodeTime } from 'ulidx';
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { pageWindow } from '../../platform/page-window.ts';
import { isTerminal, type ExtractionStatus } from '../extraction.ts';
import {
  labelKeyPartition,
  labelValuePartition,
  statusPartition,
  workspacePartition,
  type SortAttribute,
} from '../extraction-keys.ts';
import { comparatorFor, matchesFilters, type ExtractionListQuery, type ExtractionListResult } from '../extraction-listing.ts';
import type { StoredExtraction } from '../extraction-store.ts';
import type { DynamoDbExtractionStore } from './dynamodb-extraction-store.ts';
import { recordOf } from './extraction-items.ts';

export interface IndexQueryPlan {
  kind: 'index';
  indexName: string;
  partitionKeyName: string;
  partitionKey: string;
  sortKeyName: string;
  /** Bounds on the index sort key (createdAt sorts only). */
  sortKeyFrom?: string;
  sortKeyTo?: string;
  /** Bounds on createdAt applied as a filter (other sorts). */
  createdAtFrom?: string;
  createdAtTo?: string;
  ascending: boolean;
  /** Where the exact total comes from: a counter when the whole partition matches, else a COUNT query. */
  total: { source: 'counter'; counter: ExtractionStatus | 'total' } | { source: 'count-query' };
}

/**
 * One label filter, sorted by createdAt, no status: the label partition itself is the index. Its
 * sort key is the extraction id, whose ULID time is createdAt, so it is in createdAt order and a
 * creation window is an id range.
 */
export interface LabelRangePlan {
  kind: 'label-range';
  labelPartition: string;
  idFrom?: string;
  idTo?: string;
  ascending: boolean;
}

export interface LabelQueryPlan {
  kind: 'labels';
  /** One partition per label filter; the smallest is read and checked against the rest in memory. */
  labelPartitions: string[];
}

export type ExtractionListPlan = IndexQueryPlan | LabelRangePlan | LabelQueryPlan;

// Sorts past "#<id>" for any id, so an inclusive `to` bound keeps every id at that instant.
const upperBoundSuffix = '#~';

/** Which index answers a list request (the layout is described in extraction-keys.ts). */
export function planExtractionList(workspaceId: string, query: ExtractionListQuery): ExtractionListPlan {
  const labelPartitions = Object.entries(query.labels).map(([key, value]) =>
    value === '' ? labelKeyPartition(workspaceId, key) : labelValuePartition(workspaceId, key, value),
  );
  if (labelPartitions.length === 1 && query.sortBy === 'createdAt' && !query.status) {
    return {
      kind: 'label-range',
      labelPartition: labelPartitions[0]!,
      ...(query.from ? { idFrom: `ext_${encodeTime(Date.parse(query.from), 10)}${'0'.repeat(16)}` } : {}),
      ...(query.to ? { idTo: `ext_${encodeTime(Date.parse(query.to), 10)}${'Z'.repeat(16)}` } : {}),
      ascending: query.sort === 'asc',
    };
  }
  if (labelPartitions.length > 0) return { kind: 'labels', labelPartitions };
  const { status } = query;
  const partitionKey = status ? statusPartition(workspaceId, status) : workspacePartition(workspaceId);
  const index = indexFor(query.sortBy, status);
  const hasRange = query.from !== undefined || query.to !== undefined;
  const keyRange = query.sortBy === 'createdAt';
  return {
    kind: 'index',
    indexName: index,
    partitionKeyName: `${index}pk`,
    partitionKey,
    sortKeyName: `${index}sk`,
    ...(keyRange && query.from ? { sortKeyFrom: query.from } : {}),
    ...(keyRange && query.to ? { sortKeyTo: `${query.to}${upperBoundSuffix}` } : {}),
    ...(!keyRange && query.from ? { createdAtFrom: query.from } : {}),
    ...(!keyRange && query.to ? { createdAtTo: query.to } : {}),
    ascending: query.sort === 'asc',
    total: hasRange ? { source: 'count-query' } : { source: 'counter', counter: status ?? 'total' },
  };
}

function indexFor(sortBy: SortAttribute, status: ExtractionStatus | undefined): string {
  if (sortBy === 'createdAt') return status ? 'gsi2' : 'gsi1';
  if (sortBy === 'updatedAt') return status ? 'gsi4' : 'gsi3';
  if (!status) return 'gsi5';
  // Within one status: a terminal record's completedAt equals its updatedAt (both set by the terminal
  // transition, nothing changes updatedAt afterwards); records in flight have none and tie, by id.
  return isTerminal(status) ? 'gsi4' : 'gsi2';
}

/** A label item, read for the extraction id it points at. */
const labelItem = z.object({ sk: z.string() });

/** Runs a plan: DynamoDB Query only, exact totals, a page read as close to its position as possible. */
export class DynamoDbExtractionLister {
  constructor(private readonly store: DynamoDbExtractionStore) {}

  async list(workspaceId: string, query: ExtractionListQuery): Promise<ExtractionListResult> {
    const plan = planExtractionList(workspaceId, query);
    if (plan.kind === 'labels') return this.listByLabels(workspaceId, plan, query);
    if (plan.kind === 'label-range') return this.listByLabelRange(workspaceId, plan, query);
    return this.listByIndex(workspaceId, plan, query);
  }

  private async listByIndex(workspaceId: string, plan: IndexQueryPlan, query: ExtractionListQuery): Promise<ExtractionListResult> {
    const totalItems =
      plan.total.source === 'counter' ? (await this.store.counters.counts(workspaceId))[plan.total.counter] : await this.countMatching(plan);
    const window = pageWindow(totalItems, query, plan.ascending);
    if (!window) return { records: [], totalItems };
    const { skip, wanted, ascending, fromOtherEnd } = window;
    const startKey = skip > 0 ? await this.positionAfter(plan, ascending, skip) : undefined;
    if (skip > 0 && startKey === undefined) return { records: [], totalItems };
    const records = await this.readItems(plan, ascending, wanted, startKey);
    return { records: fromOtherEnd ? records.reverse() : records, totalItems };
  }

  private baseQuery(plan: IndexQueryPlan, ascending: boolean): QueryCommandInput {
    const names: Record<string, string> = { '#pk': plan.partitionKeyName };
    const values: Record<string, unknown> = { ':pk': plan.partitionKey };
    let keyCondition = '#pk = :pk';
    if (plan.sortKeyFrom !== undefined || plan.sortKeyTo !== undefined) {
      names['#sk'] = plan.sortKeyName;
      if (plan.sortKeyFrom !== undefined && plan.sortKeyTo !== undefined) {
        keyCondition += ' AND #sk BETWEEN :from AND :to';
        values[':from'] = plan.sortKeyFrom;
        values[':to'] = plan.sortKeyTo;
      } else if (plan.sortKeyFrom !== undefined) {
        keyCondition += ' AND #sk >= :from';
        values[':from'] = plan.sortKeyFrom;
      } else {
        keyCondition += ' AND #sk <= :to';
        values[':to'] = plan.sortKeyTo;
      }
    }
    const filters: string[] = [];
    if (plan.createdAtFrom !== undefined) {
      filters.push('createdAt >= :createdFrom');
      values[':createdFrom'] = plan.createdAtFrom;
    }
    if (plan.createdAtTo !== undefined) {
      filters.push('createdAt <= :createdTo');
      values[':createdTo'] = plan.createdAtTo;
    }
    return {
      TableName: this.store.tableName,
      IndexName: plan.indexName,
      KeyConditionExpression: keyCondition,
      ...(filters.length > 0 ? { FilterExpression: filters.join(' AND ') } : {}),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ScanIndexForward: ascending,
    };
  }

  private countMatching(plan: IndexQueryPlan): Promise<number> {
    return this.store.countMatching(this.baseQuery(plan, true));
  }

  /** The key to continue after `skip` matching items, reading only key attributes to get there. */
  private async positionAfter(plan: IndexQueryPlan, ascending: boolean, skip: number): Promise<Record<string, unknown> | undefined> {
    const base = this.baseQuery(plan, ascending);
    const projected = ['pk', 'sk', plan.partitionKeyName, plan.sortKeyName, 'createdAt'];
    const names = { ...base.ExpressionAttributeNames, ...Object.fromEntries(projected.map((name, index) => [`#p${index}`, name])) };
    let seen = 0;
    const pages = this.store.queryPages({
      ...base,
      ExpressionAttributeNames: names,
      ProjectionExpression: projected.map((_, index) => `#p${index}`).join(', '),
      ...(base.FilterExpression ? {} : { Limit: Math.min(1_000, skip) }),
    });
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        seen += 1;
        if (seen === skip) {
          return { pk: item.pk, sk: item.sk, [plan.partitionKeyName]: item[plan.partitionKeyName], [plan.sortKeyName]: item[plan.sortKeyName] };
        }
      }
    }
    return undefined;
  }

  private async readItems(plan: IndexQueryPlan, ascending: boolean, wanted: number, startKey: Record<string, unknown> | undefined): Promise<StoredExtraction[]> {
    const records: StoredExtraction[] = [];
    const base = this.baseQuery(plan, ascending);
    const pages = this.store.queryPages({ ...base, ExclusiveStartKey: startKey, ...(base.FilterExpression ? {} : { Limit: wanted }) });
    for await (const page of pages) {
      for (const item of page.Items ?? []) if (records.length < wanted) records.push(recordOf(item));
      if (records.length >= wanted) break;
    }
    return records;
  }

  private async listByLabelRange(workspaceId: string, plan: LabelRangePlan, query: ExtractionListQuery): Promise<ExtractionListResult> {
    const rangeQuery = (ascending: boolean): QueryCommandInput => {
      const values: Record<string, unknown> = { ':pk': plan.labelPartition };
      let condition = 'pk = :pk';
      if (plan.idFrom && plan.idTo) {
        condition += ' AND sk BETWEEN :from AND :to';
        values[':from'] = plan.idFrom;
        values[':to'] = plan.idTo;
      } else if (plan.idFrom) {
        condition += ' AND sk >= :from';
        values[':from'] = plan.idFrom;
      } else if (plan.idTo) {
        condition += ' AND sk <= :to';
        values[':to'] = plan.idTo;
      }
      return { TableName: this.store.tableName, KeyConditionExpression: condition, ExpressionAttributeValues: values, ScanIndexForward: ascending };
    };
    const totalItems = await this.store.countMatching(rangeQuery(true));
    const window = pageWindow(totalItems, query, plan.ascending);
    if (!window) return { records: [], totalItems };
    const { skip, wanted, ascending, fromOtherEnd } = window;
    const ids: string[] = [];
    let seen = 0;
    const pages = this.store.queryPages({ ...rangeQuery(ascending), ProjectionExpression: 'pk, sk', Limit: Math.min(1_000, skip + wanted) });
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        seen += 1;
        if (seen > skip && ids.length < wanted) ids.push(labelItem.parse(item).sk);
      }
      if (ids.length >= wanted) break;
    }
    const records = (await this.store.getMany(ids)).filter((record) => record.workspaceId === workspaceId && !record.deleting);
    return { records: fromOtherEnd ? records.reverse() : records, totalItems };
  }

  private async listByLabels(workspaceId: string, plan: LabelQueryPlan, query: ExtractionListQuery): Promise<ExtractionListResult> {
    const sizes = await Promise.all(plan.labelPartitions.map((partition) => this.countPartition(partition)));
    const smallest = plan.labelPartitions[sizes.indexOf(Math.min(...sizes))]!;
    const candidateIds = await this.idsIn(smallest);
    const candidates = await this.store.getMany(candidateIds);
    const matching = candidates.filter((record) => record.workspaceId === workspaceId && !record.deleting && matchesFilters(record, query));
    matching.sort(comparatorFor(query));
    const offset = query.page * query.size;
    return { records: matching.slice(offset, offset + query.size), totalItems: matching.length };
  }

  private countPartition(partition: string): Promise<number> {
    return this.store.countMatching({ TableName: this.store.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': partition } });
  }

  private async idsIn(partition: string): Promise<string[]> {
    const ids: string[] = [];
    const pages = this.store.queryPages({
      TableName: this.store.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': partition },
      ProjectionExpression: 'sk',
    });
    for await (const page of pages) ids.push(...(page.Items ?? []).map((item) => labelItem.parse(item).sk));
    return ids;
  }
}

