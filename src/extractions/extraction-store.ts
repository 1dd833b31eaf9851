import type { ExtractedField, ExtractionOutput, ExtractionRecord, ExtractionStatus } from './extraction.ts';
import type { ExtractionFeedback } from './extraction-feedback.ts';
import type { CorrectedDocument, FieldCorrection } from './field-corrections.ts';
import type { ExtractionListQuery, ExtractionListResult } from './extraction-listing.ts';
import type { PendingCount } from '../platform/exact-counters.ts';

// The ports through which the extraction services keep extractions. The records table's adapters are in
// aws/ (dynamodb-extraction-store.ts and its parts); the unit tests' are in test/support/memory/.

/** The record as stored: the resource plus bookkeeping for optimistic locking and counters. */
export interface StoredExtraction extends ExtractionRecord {
  /** Increments on every write of the record; writes are conditional on it (optimistic locking). */
  revision: number;
  /** The status the workspace counters currently count this record under; absent: not counted. */
  countedAs?: ExtractionStatus;
  /** Set while a delete is under way: the record has left every list and GET answers 404. */
  deleting?: boolean;
  /** A counter change claimed and not yet confirmed (src/platform/exact-counters.ts). */
  pendingCount?: PendingCount<ExtractionStatus>;
  /**
   * Set by the terminal transition of a generation, cleared once its event is recorded: until then
   * the record stays in the attention index whatever else changes (counters, feedback), so the
   * sweeper records the event of a settlement that stopped between the two writes.
   */
  eventPending?: boolean;
}

export interface MutationResult {
  applied: boolean;
  record: StoredExtraction | undefined;
}

/** The workspace's exact totals: one per status and `total`. */
export type ExtractionCounts = Record<ExtractionStatus | 'total', number>;

/** What points at extraction records: label items (list filters), content hashes, the attention index. */
export interface ExtractionIndex {
  /** Idempotent: the label items of a record (labels never change after creation). */
  writeLabelItems(record: Pick<ExtractionRecord, 'workspaceId' | 'id' | 'labels'>): Promise<void>;
  /** Registers the content of a record for the duplicate policy. */
  rememberContentHash(record: Pick<ExtractionRecord, 'workspaceId' | 'id'>, sha256: string): Promise<void>;
  /** Whether an extraction created before this one (ids are time-sortable) had the same content. */
  hasEarlierWithContentHash(record: Pick<ExtractionRecord, 'workspaceId' | 'id'>, sha256: string): Promise<boolean>;
  /** Records that are in flight, not yet counted, waiting for their event or being deleted: what the sweeper looks at. */
  needingAttention(): AsyncIterable<StoredExtraction>;
}

/**
 * The extraction's output as clients read it, with the reviewers' corrections beside the extracted
 * values (ExtractionOutputStore in extraction-output-store.ts, over the records the adapter keeps).
 */
export interface ExtractionOutputs {
  /** `sha256` is the document's content: corrections remembered for it carry over to this output. */
  put(record: Pick<ExtractionRecord, 'id' | 'workspaceId' | 'generation' | 'sha256'>, output: ExtractionOutput): Promise<void>;
  get(extractionId: string): Promise<ExtractionOutput | undefined>;
  /** Corrects one field of the output and remembers the correction for the document's content. */
  correct(
    record: Pick<ExtractionRecord, 'id' | 'workspaceId' | 'sha256'> & { document: CorrectedDocument },
    output: Pick<ExtractionOutput, 'docType'>,
    field: Pick<ExtractedField, 'id' | 'name' | 'type'>,
    correction: FieldCorrection,
  ): Promise<void>;
  /** Removes what the output keeps outside the records (the rest goes with `removeItems`). */
  deleteObject(extractionId: string): Promise<void>;
}

/**
 * The extractions: records with optimistic locking, the exact workspace counters that follow them, the
 * index items and feedback kept with them, and the lists. The DynamoDB emulators have no
 * transactions, so the adapter orders multi-item changes to be safe when interrupted (see it).
 */
export interface ExtractionStore {
  readonly indexItems: ExtractionIndex;
  readonly feedback: ExtractionFeedback;

  /** Stores a new record (revision 1) with its label items; nothing is left when this fails. */
  create(record: ExtractionRecord): Promise<StoredExtraction>;
  get(extractionId: string): Promise<StoredExtraction | undefined>;
  /** The extraction as the workspace sees it: another workspace's or a deleted one does not exist. */
  getInWorkspace(workspaceId: string, extractionId: string): Promise<StoredExtraction | undefined>;
  /**
   * Read-decide-write with optimistic locking: `decide` sees the current record and returns the next
   * one, or undefined when the change no longer applies. Counters follow every applied change; the
   * counter bookkeeping (`countedAs`, `pendingCount`) is the store's, whatever `decide` returns.
   */
  mutate(extractionId: string, decide: (current: StoredExtraction) => ExtractionRecord | StoredExtraction | undefined): Promise<MutationResult>;
  /**
   * Brings the workspace counters in line with the record, exactly once per change; a terminal
   * record counted as it is, its event recorded, leaves the attention index.
   */
  syncCounters(record: Pick<StoredExtraction, 'id'>): Promise<void>;
  /** The terminal event of `generation` is recorded; nothing when already cleared or superseded. */
  clearEventPending(extractionId: string, generation: number): Promise<void>;
  /** Every item of the extraction (output, feedback, label and hash items), the record last. */
  removeItems(record: StoredExtraction): Promise<void>;
  /** A page of the workspace's extractions, with the exact total of what matches. */
  list(workspaceId: string, query: ExtractionListQuery): Promise<ExtractionListResult>;
}
