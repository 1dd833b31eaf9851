/*
 * Exact counts per scope (a workspace's extractions…) and category (a status), kept so that a list can
 * answer `totalItems` without counting. The subject records take part in the protocol through three
 * attributes of their own: `revision` (incremented on every write), `countedAs` (the category the
 * counters count it under) and `pendingCount` (a change claimed and not yet confirmed). The records
 * table's implementation of the protocol is aws/dynamodb-exact-counters.ts.
 */

export interface PendingCount<Category extends string = string> {
  token: string;
  /** Epoch milliseconds; a claim older than the lease was abandoned by its claimant. */
  claimedAt: number;
  from?: Category;
  to?: Category;
}

/** What a subject record carries for the protocol. */
export interface CountedState<Category extends string> {
  revision: number;
  countedAs?: Category;
  pendingCount?: PendingCount<Category>;
}

export type Counts<Category extends string> = Record<Category | 'total', number>;
