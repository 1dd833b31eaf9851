import { encodeTime } from 'ulidx';
import { describe, expect, it } from 'vitest';
import type { ExtractionRecord } from '../../../src/extractions/extraction.ts';
import { planExtractionList } from '../../../src/extractions/aws/dynamodb-extraction-listing.ts';
import { comparatorFor, matchesFilters, type ExtractionListQuery } from '../../../src/extractions/extraction-listing.ts';
import { pageWindow } from '../../../src/platform/page-window.ts';
import { labelKeyPartition, labelValuePartition } from '../../../src/extractions/extraction-keys.ts';

const query = (overrides: Partial<ExtractionListQuery> = {}): ExtractionListQuery => ({ page: 0, size: 50, sortBy: 'createdAt', sort: 'desc', labels: {}, ...overrides });

describe('planExtractionList', () => {
  it('answers the default list from the workspace index by createdAt, total from the counter', () => {
    expect(planExtractionList('ws_a', query())).toEqual({
      kind: 'index',
      indexName: 'gsi1',
      partitionKeyName: 'gsi1pk',
      partitionKey: 'WS#ws_a#EXT',
      sortKeyName: 'gsi1sk',
      ascending: false,
      total: { source: 'counter', counter: 'total' },
    });
  });

  it('answers a status filter from the status partition and its counter', () => {
    const plan = planExtractionList('ws_a', query({ status: 'FAILED', sort: 'asc' }));

    expect(plan).toMatchObject({ indexName: 'gsi2', partitionKey: 'WS#ws_a#EXT#STATUS#FAILED', ascending: true, total: { source: 'counter', counter: 'FAILED' } });
  });

  it('puts a creation window into the key condition when sorting by createdAt, and counts with a query', () => {
    const plan = planExtractionList('ws_a', query({ from: '2026-01-01T00:00:00.000Z', to: '2026-01-31T00:00:00.000Z' }));

    expect(plan).toMatchObject({
      indexName: 'gsi1',
      sortKeyFrom: '2026-01-01T00:00:00.000Z',
      sortKeyTo: '2026-01-31T00:00:00.000Z#~',
      total: { source: 'count-query' },
    });
    expect(plan).not.toHaveProperty('createdAtFrom');
  });

  it('filters a creation window on createdAt when sorting by another attribute', () => {
    const plan = planExtractionList('ws_a', query({ sortBy: 'updatedAt', from: '2026-01-01T00:00:00.000Z' }));

    expect(plan).toMatchObject({ indexName: 'gsi3', createdAtFrom: '2026-01-01T00:00:00.000Z', total: { source: 'count-query' } });
    expect(plan).not.toHaveProperty('sortKeyFrom');
  });

  it.each([
    ['updatedAt', undefined, 'gsi3'],
    ['updatedAt', 'PROCESSING', 'gsi4'],
    ['completedAt', undefined, 'gsi5'],
    ['completedAt', 'COMPLETED', 'gsi4'],
    ['completedAt', 'QUEUED', 'gsi2'],
  ] as const)('sorts by %s with status %s on %s', (sortBy, status, indexName) => {
    expect(planExtractionList('ws_a', query({ sortBy, ...(status ? { status } : {}) }))).toMatchObject({ indexName });
  });

  it('reads one label, sorted by createdAt, from its partition in id order, a window as an id range', () => {
    const plan = planExtractionList('ws_a', query({ labels: { customer: 'acme' }, from: '2026-01-01T00:00:00.000Z', to: '2026-01-01T00:00:00.005Z', sort: 'asc' }));

    expect(plan).toEqual({
      kind: 'label-range',
      labelPartition: labelValuePartition('ws_a', 'customer', 'acme'),
      idFrom: `ext_${encodeTime(Date.parse('2026-01-01T00:00:00.000Z'), 10)}0000000000000000`,
      idTo: `ext_${encodeTime(Date.parse('2026-01-01T00:00:00.005Z'), 10)}ZZZZZZZZZZZZZZZZ`,
      ascending: true,
    });
  });

  it('reads label filters through label partitions, value or presence', () => {
    const plan = planExtractionList('ws_a', query({ labels: { customer: 'acme', region: '' }, status: 'COMPLETED' }));

    expect(plan).toEqual({ kind: 'labels', labelPartitions: [labelValuePartition('ws_a', 'customer', 'acme'), labelKeyPartition('ws_a', 'region')] });
  });
});

const record = (overrides: Partial<ExtractionRecord>): ExtractionRecord => ({
  id: 'ext_1',
  workspaceId: 'ws_a',
  status: 'COMPLETED',
  generation: 1,
  createdAt: '2026-01-02T00:00:00.000Z',
  updatedAt: '2026-01-02T00:00:01.000Z',
  completedAt: '2026-01-02T00:00:01.000Z',
  labels: { customer: 'acme' },
  document: {},
  outputAvailable: true,
  ...overrides,
});

describe('matchesFilters', () => {
  it('applies status, window and every label (AND, empty value = present)', () => {
    const candidate = record({ labels: { customer: 'acme', region: 'eu' } });

    expect(matchesFilters(candidate, query({ labels: { customer: 'acme', region: '' } }))).toBe(true);
    expect(matchesFilters(candidate, query({ labels: { customer: 'acme', team: '' } }))).toBe(false);
    expect(matchesFilters(candidate, query({ labels: { customer: 'globex' } }))).toBe(false);
    expect(matchesFilters(candidate, query({ status: 'FAILED' }))).toBe(false);
    expect(matchesFilters(candidate, query({ from: '2026-01-02T00:00:00.000Z', to: '2026-01-02T00:00:00.000Z' }))).toBe(true);
    expect(matchesFilters(candidate, query({ from: '2026-01-02T00:00:00.001Z' }))).toBe(false);
  });
});

describe('comparatorFor', () => {
  it('orders like the indexes: sort value, then id; records without completedAt last ascending', () => {
    const early = record({ id: 'ext_2', completedAt: '2026-01-01T00:00:00.000Z' });
    const late = record({ id: 'ext_1', completedAt: '2026-01-03T00:00:00.000Z' });
    const { completedAt: _omitted, ...inFlightFields } = record({ id: 'ext_0', status: 'PROCESSING' });
    const inFlight = inFlightFields as ExtractionRecord;

    expect([late, inFlight, early].sort(comparatorFor({ sortBy: 'completedAt', sort: 'asc' })).map((item) => item.id)).toEqual(['ext_2', 'ext_1', 'ext_0']);
    expect([late, inFlight, early].sort(comparatorFor({ sortBy: 'completedAt', sort: 'desc' })).map((item) => item.id)).toEqual(['ext_0', 'ext_1', 'ext_2']);
  });
});

describe('pageWindow', () => {
  it('skips to a page in the first half in the requested direction', () => {
    expect(pageWindow(50_000, { page: 0, size: 50 }, false)).toEqual({ skip: 0, wanted: 50, ascending: false, fromOtherEnd: false });
    expect(pageWindow(50_000, { page: 10, size: 50 }, true)).toEqual({ skip: 500, wanted: 50, ascending: true, fromOtherEnd: false });
  });

  it('reads a page in the second half from the other end', () => {
    expect(pageWindow(50_000, { page: 999, size: 50 }, false)).toEqual({ skip: 0, wanted: 50, ascending: true, fromOtherEnd: true });
    expect(pageWindow(7, { page: 2, size: 3 }, false)).toEqual({ skip: 0, wanted: 1, ascending: true, fromOtherEnd: true });
    expect(pageWindow(7, { page: 1, size: 3 }, false)).toEqual({ skip: 1, wanted: 3, ascending: true, fromOtherEnd: true });
    expect(pageWindow(8, { page: 1, size: 3 }, false)).toEqual({ skip: 2, wanted: 3, ascending: true, fromOtherEnd: true });
    expect(pageWindow(9, { page: 1, size: 3 }, false)).toEqual({ skip: 3, wanted: 3, ascending: false, fromOtherEnd: false });
  });

  it('has nothing past the end', () => {
    expect(pageWindow(7, { page: 3, size: 3 }, false)).toBeUndefined();
    expect(pageWindow(0, { page: 0, size: 50 }, false)).toBeUndefined();
  });
});
