import type { EventEnvelope } from '../../../src/events/event-envelope.ts';
import { isTerminal, type ExtractionOutput, type ExtractionRecord, type Feedback } from '../../../src/extractions/extraction.ts';
import type { ExtractionExecutionInput, ExtractionExecutions } from '../../../src/extractions/extraction-executions.ts';
import type { ExtractionFeedback } from '../../../src/extractions/extraction-feedback.ts';
import { comparatorFor, matchesFilters, type ExtractionListQuery, type ExtractionListResult } from '../../../src/extractions/extraction-listing.ts';
import type { ExtractionEventRecorder } from '../../../src/extractions/extraction-settlement.ts';
import type {
  ExtractionCounts,
  ExtractionIndex,
  ExtractionStore,
  MutationResult,
  StoredExtraction,
} from '../../../src/extractions/extraction-store.ts';

// The extraction ports over Maps, for unit tests of the extraction services without an emulator. They
// keep what the DynamoDB adapters promise (revisions, exact counters, the attention index, label and
// hash items, one event per id), not how: nothing here is interrupted between writes.

export class InMemoryExtractionIndex implements ExtractionIndex {
  /** Ids of the records whose label items are written. */
  readonly labelled = new Set<string>();
  /** `<workspace>#<sha256>` → ids of the extractions with that content. */
  readonly contentHashes = new Map<string, Set<string>>();

  constructor(private readonly records: Map<string, StoredExtraction>) {}

  async writeLabelItems(record: Pick<ExtractionRecord, 'workspaceId' | 'id' | 'labels'>): Promise<void> {
    this.labelled.add(record.id);
  }

  async rememberContentHash(record: Pick<ExtractionRecord, 'workspaceId' | 'id'>, sha256: string): Promise<void> {
    const ids = this.contentHashes.get(`${record.workspaceId}#${sha256}`) ?? new Set<string>();
    this.contentHashes.set(`${record.workspaceId}#${sha256}`, ids.add(record.id));
  }

  async hasEarlierWithContentHash(record: Pick<ExtractionRecord, 'workspaceId' | 'id'>, sha256: string): Promise<boolean> {
    return [...(this.contentHashes.get(`${record.workspaceId}#${sha256}`) ?? [])].some((id) => id < record.id);
  }

  async *needingAttention(): AsyncGenerator<StoredExtraction> {
    for (const record of [...this.records.values()]) if (needsAttention(record)) yield structuredClone(record);
  }

  forget(record: Pick<ExtractionRecord, 'workspaceId' | 'id' | 'sha256'>): void {
    this.labelled.delete(record.id);
    if (record.sha256) this.contentHashes.get(`${record.workspaceId}#${record.sha256}`)?.delete(record.id);
  }
}

/** The attention index's membership rule (extraction-keys.ts: gsi6). */
function needsAttention(record: StoredExtraction): boolean {
  return !isTerminal(record.status) || record.countedAs !== record.status || record.deleting === true || record.eventPending === true;
}

export class InMemoryExtractionFeedback implements ExtractionFeedback {
  readonly feedback: Feedback[] = [];

  async put(feedback: Feedback): Promise<void> {
    this.feedback.push(structuredClone(feedback));
  }
}

export class InMemoryExtractionStore implements ExtractionStore {
  readonly records = new Map<string, StoredExtraction>();
  /** The workspace counters, as the list's `totalItems` and operators see them. */
  readonly counters = new Map<string, ExtractionCounts>();
  readonly indexItems = new InMemoryExtractionIndex(this.records);
  readonly feedback = new InMemoryExtractionFeedback();

  async create(record: ExtractionRecord): Promise<StoredExtraction> {
    if (this.records.has(record.id)) throw new Error(`Extraction ${record.id} exists.`);
    const stored: StoredExtraction = { ...structuredClone(record), revision: 1 };
    this.records.set(record.id, stored);
    await this.indexItems.writeLabelItems(record);
    await this.syncCounters(stored);
    return structuredClone(stored);
  }

  async get(extractionId: string): Promise<StoredExtraction | undefined> {
    const record = this.records.get(extractionId);
    return record ? structuredClone(record) : undefined;
  }

  async getInWorkspace(workspaceId: string, extractionId: string): Promise<StoredExtraction | undefined> {
    const record = await this.get(extractionId);
    return record && record.workspaceId === workspaceId && !record.deleting ? record : undefined;
  }

  async mutate(extractionId: string, decide: (current: StoredExtraction) => ExtractionRecord | StoredExtraction | undefined): Promise<MutationResult> {
    const current = await this.get(extractionId);
    if (!current || current.deleting) return { applied: false, record: current };
    const decided = decide(current);
    if (!decided) return { applied: false, record: current };
    const { countedAs: _countedAs, pendingCount: _pendingCount, ...content }: Partial<StoredExtraction> & ExtractionRecord = structuredClone(decided);
    const next: StoredExtraction = { ...content, revision: current.revision + 1, ...(current.countedAs ? { countedAs: current.countedAs } : {}) };
    this.records.set(extractionId, next);
    await this.syncCounters(next);
    return { applied: true, record: (await this.get(extractionId))! };
  }

  async syncCounters(record: Pick<StoredExtraction, 'id'>): Promise<void> {
    const current = this.records.get(record.id);
    if (!current) return;
    const target = current.deleting ? undefined : current.status;
    if (current.countedAs === target) return;
    const counts = this.countsOf(current.workspaceId);
    if (current.countedAs) counts[current.countedAs] -= 1;
    if (target) counts[target] += 1;
    if (!current.countedAs && target) counts.total += 1;
    if (current.countedAs && !target) counts.total -= 1;
    if (target) current.countedAs = target;
    else delete current.countedAs;
    current.revision += 1;
  }

  async clearEventPending(extractionId: string, generation: number): Promise<void> {
    const current = this.records.get(extractionId);
    if (!current?.eventPending || current.generation !== generation) return;
    delete current.eventPending;
    current.revision += 1;
  }

  async removeItems(record: StoredExtraction): Promise<void> {
    this.indexItems.forget(record);
    this.feedback.feedback.splice(0, this.feedback.feedback.length, ...this.feedback.feedback.filter((feedback) => feedback.extractionId !== record.id));
    this.records.delete(record.id);
  }

  async list(workspaceId: string, query: ExtractionListQuery): Promise<ExtractionListResult> {
    const matching = [...this.records.values()]
      .filter((record) => record.workspaceId === workspaceId && !record.deleting && matchesFilters(record, query))
      .sort(comparatorFor(query));
    const offset = query.page * query.size;
    return { records: matching.slice(offset, offset + query.size).map((record) => structuredClone(record)), totalItems: matching.length };
  }

  countsOf(workspaceId: string): ExtractionCounts {
    if (!this.counters.has(workspaceId)) {
      this.counters.set(workspaceId, { total: 0, QUEUED: 0, PROCESSING: 0, COMPLETED: 0, FAILED: 0, REJECTED: 0 });
    }
    return this.counters.get(workspaceId)!;
  }
}

/** Records each start; a test makes the next ones fail by setting `failure`. */
export class InMemoryExtractionExecutions implements ExtractionExecutions {
  readonly started: ExtractionExecutionInput[] = [];
  failure: Error | undefined;

  async start(record: Pick<ExtractionRecord, 'workspaceId' | 'id' | 'generation'>): Promise<void> {
    if (this.failure) throw this.failure;
    // One execution per generation, as the state machine's execution names make it.
    if (this.started.some((started) => started.extractionId === record.id && started.generation === record.generation)) return;
    this.started.push({ workspaceId: record.workspaceId, extractionId: record.id, generation: record.generation });
  }
}

/** Events by id, recorded once each, as the event recorder does. */
export class InMemoryEventRecorder implements ExtractionEventRecorder {
  readonly events: { workspaceId: string; event: EventEnvelope }[] = [];

  async record(workspaceId: string, event: EventEnvelope): Promise<boolean> {
    if (this.events.some((recorded) => recorded.event.eventId === event.eventId)) return false;
    this.events.push({ workspaceId, event: structuredClone(event) });
    return true;
  }
}
