import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import type { CountedState, Counts, PendingCount } from '../exact-counters.ts';

// The protocol of src/platform/exact-counters.ts over the records table: one counters item per scope.

type TableKey = Record<string, unknown>;

export interface CountedSubject<Category extends string> {
  /** Names the subject in claim tokens and messages (e.g. the extraction id). */
  id: string;
  /** The subject item's key. */
  key: TableKey;
  /** The counters item of the scope the subject is counted in. */
  scope: TableKey;
  /** The category the subject should be counted under as it now stands; undefined: not at all (deleted). */
  target: Category | undefined;
}

const optimisticRetries = 10;
/** A claimant finishes its counter change within this (three DynamoDB writes); older claims are abandoned. */
const claimLeaseMs = 60_000;

export class DynamoDbExactCounters<Category extends string> {
  /** The counters item: a number per category and `total` (absent until first counted: 0), and the claims' tokens. */
  private readonly countersItem: z.ZodMiniType<Partial<Record<string, number>>>;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly categories: readonly Category[],
    private readonly now: () => number = Date.now,
  ) {
    this.countersItem = z.object(Object.fromEntries(['total', ...categories].map((name) => [name, z.optional(z.number())])));
  }

  /**
   * Brings the scope's counters in line with the subject, exactly once per change even when
   * interrupted, repeated or raced (DynamoDB emulators have no transactions): the subject first claims
   * the change (`pendingCount`, conditional: one claimant), the counters apply it guarded by its token
   * (`NOT contains(tokens, :token)`), then the subject clears the claim and says what it is counted
   * as, and the token leaves the counters item. Only the claimant works on a fresh claim: another
   * finisher could otherwise apply it again after the claimant removed its token. A claim older than
   * the lease was abandoned (its claimant stopped) and is finished by whoever finds it; if the counters
   * already carry its token, it is only confirmed. So the token set holds only claims in progress.
   *
   * `read` loads the subject as it stands (consistently). Returns the subject once it is counted as
   * its target, or undefined when it is gone or a fresh claim is left to its claimant; a caller whose
   * subjects wait somewhere until counted (an attention index) takes them out on the former.
   */
  async sync<State extends CountedState<Category>>(
    read: () => Promise<State | undefined>,
    subjectOf: (state: State) => CountedSubject<Category>,
  ): Promise<State | undefined> {
    let name = 'subject';
    for (let attempt = 0; attempt < optimisticRetries; attempt += 1) {
      const current = await read();
      if (!current) return undefined;
      const subject = subjectOf(current);
      name = subject.id;
      if (current.pendingCount) {
        if (this.now() - current.pendingCount.claimedAt < claimLeaseMs) return undefined; // its claimant finishes it
        await this.applyPendingCount(subject, current.pendingCount);
        continue;
      }
      if (current.countedAs === subject.target) return current;
      const claimedAt = this.now();
      const pending: PendingCount<Category> = {
        token: `${subject.id}#${current.revision}#${claimedAt}`,
        claimedAt,
        ...(current.countedAs ? { from: current.countedAs } : {}),
        ...(subject.target ? { to: subject.target } : {}),
      };
      try {
        await this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: subject.key,
            UpdateExpression: 'SET pendingCount = :pending, revision = revision + :one',
            ConditionExpression: 'revision = :revision AND attribute_not_exists(pendingCount)',
            ExpressionAttributeValues: { ':pending': pending, ':revision': current.revision, ':one': 1 },
          }),
        );
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) continue; // changed meanwhile: look again
        throw error;
      }
      await this.applyPendingCount(subject, pending);
    }
    throw new Error(`Counters of ${name} kept changing; gave up after ${optimisticRetries} attempts.`);
  }

  private async applyPendingCount(subject: CountedSubject<Category>, pending: PendingCount<Category>): Promise<void> {
    const deltas = new Map<string, number>();
    if (pending.from) deltas.set(pending.from, -1);
    if (pending.to) deltas.set(pending.to, (deltas.get(pending.to) ?? 0) + 1);
    if (!pending.from && pending.to) deltas.set('total', 1);
    if (pending.from && !pending.to) deltas.set('total', -1);
    const names: Record<string, string> = { '#tokens': 'tokens' };
    const values: Record<string, unknown> = { ':token': pending.token, ':tokens': new Set([pending.token]) };
    const additions = [...deltas].map(([name, delta], index) => {
      names[`#c${index}`] = name;
      values[`:d${index}`] = delta;
      return `#c${index} :d${index}`;
    });
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: subject.scope,
          UpdateExpression: `ADD ${[...additions, '#tokens :tokens'].join(', ')}`,
          ConditionExpression: 'attribute_not_exists(#tokens) OR NOT contains(#tokens, :token)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error; // applied before an interruption
    }
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: subject.key,
          UpdateExpression: `${pending.to ? 'SET countedAs = :to, ' : 'SET '}revision = revision + :one REMOVE pendingCount${pending.to ? '' : ', countedAs'}`,
          ConditionExpression: 'pendingCount.#token = :token',
          ExpressionAttributeNames: { '#token': 'token' },
          ExpressionAttributeValues: { ':token': pending.token, ':one': 1, ...(pending.to ? { ':to': pending.to } : {}) },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error; // finished by someone else
    }
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: subject.scope,
        UpdateExpression: 'DELETE #tokens :tokens',
        ExpressionAttributeNames: { '#tokens': 'tokens' },
        ExpressionAttributeValues: { ':tokens': new Set([pending.token]) },
      }),
    );
  }

  /** The scope's counts: the total and one per category (0 when never counted). */
  async counts(scope: TableKey): Promise<Counts<Category>> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: scope, ConsistentRead: true }));
    const stored = this.countersItem.parse(Item ?? {});
    const counts = { total: stored.total ?? 0 } as Counts<Category>;
    for (const category of this.categories) counts[category] = stored[category] ?? 0;
    return counts;
  }

  /** Adds to a scope's counters directly: only for seeding and for tests that simulate a crash. */
  async add(scope: TableKey, deltas: Partial<Counts<Category>>): Promise<void> {
    const entries = Object.entries(deltas).filter(([, delta]) => delta);
    if (entries.length === 0) return;
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: scope,
        UpdateExpression: `ADD ${entries.map((_, index) => `#c${index} :d${index}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(entries.map(([name], index) => [`#c${index}`, name])),
        ExpressionAttributeValues: Object.fromEntries(entries.map(([, delta], index) => [`:d${index}`, delta])),
      }),
    );
  }
}
