import type { ExtractionRecord, ExtractionStatus } from './extraction.ts';
import { sortValueOf, type SortAttribute } from './extraction-keys.ts';
import type { StoredExtraction } from './extraction-store.ts';

// What a list of extractions asks and answers, and the order and filters every store must apply
// alike; the records table answers with index queries (aws/dynamodb-extraction-listing.ts).

export interface ExtractionListQuery {
  page: number;
  size: number;
  status?: ExtractionStatus;
  /** Normalised ISO 8601 (toISOString), inclusive bounds on createdAt. */
  from?: string;
  to?: string;
  sortBy: SortAttribute;
  sort: 'asc' | 'desc';
  /** An empty value means "has the label"; several combine with AND. */
  labels: Record<string, string>;
}

export interface ExtractionListResult {
  records: StoredExtraction[];
  totalItems: number;
}

/** What the query's filters keep (the index path applies the same ones in its key conditions). */
export function matchesFilters(record: ExtractionRecord, query: ExtractionListQuery): boolean {
  if (query.status && record.status !== query.status) return false;
  if (query.from && record.createdAt < query.from) return false;
  if (query.to && record.createdAt > query.to) return false;
  return Object.entries(query.labels).every(([key, value]) =>
    value === '' ? Object.hasOwn(record.labels, key) : record.labels[key] === value,
  );
}

/** The index order: sort value, then id, in the requested direction. */
export function comparatorFor(query: Pick<ExtractionListQuery, 'sortBy' | 'sort'>): (a: ExtractionRecord, b: ExtractionRecord) => number {
  const sign = query.sort === 'asc' ? 1 : -1;
  return (a, b) => {
    const left = `${sortValueOf(a, query.sortBy)}#${a.id}`;
    const right = `${sortValueOf(b, query.sortBy)}#${b.id}`;
    return left < right ? -sign : left > right ? sign : 0;
  };
}
