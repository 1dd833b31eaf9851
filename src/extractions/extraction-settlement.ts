import { ConflictError, NotFoundError } from '../platform/errors.ts';
import { logger } from '../infrastructure/logger.ts';
import { metrics, millisecondsSince } from '../infrastructure/metrics.ts';
import { inFlightStatuses, isTerminal, type ExtractionStatus, type RunError } from './extraction.ts';
import type { EventEnvelope } from '../events/event-envelope.ts';
import { extractionEventOf } from './extraction-events.ts';
import type { ExtractionExecutions } from './extraction-executions.ts';
import type { ExtractionOutputs, ExtractionStore, StoredExtraction } from './extraction-store.ts';

export interface TerminalOutcome {
  status: Extract<ExtractionStatus, 'COMPLETED' | 'FAILED' | 'REJECTED'>;
  error?: RunError;
  pageCount?: number;
}

/** Where terminal events are recorded: idempotently by event id (false: it was recorded before). */
export interface ExtractionEventRecorder {
  record(workspaceId: string, event: EventEnvelope): Promise<boolean>;
}

export interface SweepReport {
  failedStuck: number;
  settled: number;
  deleted: number;
  counted: number;
  /** Records the sweep could not handle (each logged at warn level); the next sweep tries again. */
  skipped: number;
}

/**
 * How extractions end: the terminal transition of one generation, its one event, the counters, and
 * the cleanup after a delete. Used by the state machine's last task, by the API (a start that failed,
 * deletes, reprocessing) and by the sweeper, which finishes whatever an interrupted caller left.
 */
export class ExtractionSettlement {
  constructor(
    private readonly store: ExtractionStore,
    private readonly outputs: ExtractionOutputs,
    private readonly events: ExtractionEventRecorder,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Moves the generation to its terminal state, if it is still in flight, and records its event.
   * Repeating it (a retried task) records nothing new; a generation that was already ended (by the
   * sweeper) or superseded (reprocessed) is left alone. Returns the record as it now stands.
   */
  async finish(extractionId: string, generation: number, outcome: TerminalOutcome): Promise<StoredExtraction | undefined> {
    const at = this.now().toISOString();
    const result = await this.store.mutate(extractionId, (current) => {
      if (current.generation !== generation || !inFlightStatuses.includes(current.status)) return undefined;
      const { error: _previousError, ...rest } = current;
      return {
        ...rest,
        status: outcome.status,
        updatedAt: at,
        completedAt: at,
        outputAvailable: outcome.status === 'COMPLETED',
        // In the attention index until `settle` has recorded the event, whatever happens in between.
        eventPending: true,
        ...(outcome.error ? { error: outcome.error } : {}),
        document: { ...current.document, ...(outcome.pageCount !== undefined ? { pageCount: outcome.pageCount } : {}) },
      };
    });
    const record = result.record;
    if (result.applied && record && isTerminal(record.status)) metrics.record('ExtractionDuration', millisecondsSince(record.createdAt, new Date(at)), record.status);
    if (!record || record.deleting || record.generation !== generation || !isTerminal(record.status)) return record;
    await this.settle(record);
    return record;
  }

  /**
   * Records the terminal event (idempotent id), then says so on the record (`eventPending` cleared),
   * then syncs counters, which ends the attention. The terminal write set `eventPending`, so a
   * settlement stopped anywhere before the event is durable leaves the record to the sweeper.
   */
  async settle(record: StoredExtraction): Promise<void> {
    const output = record.status === 'COMPLETED' ? await this.outputs.get(record.id) : undefined;
    await this.events.record(record.workspaceId, extractionEventOf(record, output));
    await this.store.clearEventPending(record.id, record.generation);
    await this.store.syncCounters(record);
  }

  /** Settles a terminal record whose event is not recorded yet (before a delete or a reprocess moves on). */
  async settleIfPending(record: StoredExtraction): Promise<void> {
    if (record.eventPending && isTerminal(record.status) && !record.deleting) await this.settle(record);
  }

  async completeDeletion(record: StoredExtraction): Promise<void> {
    await this.outputs.deleteObject(record.id);
    await this.store.syncCounters(record);
    await this.store.removeItems(record);
  }

  /**
   * Operators only (`paperflow-admin extractions reprocess <id>`): a terminal extraction starts a new
   * generation, goes through QUEUED and PROCESSING again and ends with a new event. Without a
   * workspace the id alone finds it.
   */
  async reprocess(executions: ExtractionExecutions, workspaceId: string | undefined, extractionId: string): Promise<StoredExtraction> {
    const at = this.now().toISOString();
    // The generation that ends here keeps its event, even one a stopped settlement left to the sweeper.
    const before = await this.store.get(extractionId);
    if (before && (workspaceId === undefined || before.workspaceId === workspaceId)) await this.settleIfPending(before);
    const result = await this.store.mutate(extractionId, (current) => {
      if (workspaceId !== undefined && current.workspaceId !== workspaceId) return undefined;
      if (!isTerminal(current.status)) return undefined;
      const { completedAt: _completedAt, error: _error, eventPending: _eventPending, ...rest } = current;
      return { ...rest, status: 'QUEUED', generation: current.generation + 1, updatedAt: at, outputAvailable: false };
    });
    const record = result.record;
    if (!record || record.deleting || (workspaceId !== undefined && record.workspaceId !== workspaceId)) {
      throw new NotFoundError(`Extraction ${extractionId} does not exist.`);
    }
    if (!result.applied) throw new ConflictError(`Extraction ${extractionId} is ${record.status}; only a terminal extraction can be reprocessed.`);
    await this.outputs.deleteObject(record.id);
    try {
      await executions.start(record);
    } catch (error) {
      await this.finish(record.id, record.generation, {
        status: 'FAILED',
        error: { code: 'DOCUMENT_EXTRACTION_FAILED', message: 'Reprocessing could not be started.' },
      });
      throw error;
    }
    return record;
  }

  /**
   * The safety net: extractions in flight for longer than `stuckAfterMs` (an execution that died or
   * never started) end FAILED with their event; terminal ones whose event or counters were left
   * unrecorded are settled; interrupted deletes are finished. Reads the sparse attention index only.
   */
  async sweep(stuckAfterMs: number): Promise<SweepReport> {
    const report: SweepReport = { failedStuck: 0, settled: 0, deleted: 0, counted: 0, skipped: 0 };
    const deadline = new Date(this.now().getTime() - stuckAfterMs).toISOString();
    for await (const record of this.store.indexItems.needingAttention()) {
      // One record that cannot be handled (malformed, or a failing write) must not stop the recovery
      // of every other workspace's records behind it.
      try {
        await this.sweepOne(record, deadline, report);
      } catch (error) {
        report.skipped += 1;
        logger.warn('extraction sweep skipped a record', { extractionId: record.id, error });
      }
    }
    return report;
  }

  private async sweepOne(record: StoredExtraction, deadline: string, report: SweepReport): Promise<void> {
    // Never counted: its create may have stopped before writing the label items.
    if (!record.deleting && record.countedAs === undefined) await this.store.indexItems.writeLabelItems(record);
    if (record.deleting) {
      await this.completeDeletion(record);
      report.deleted += 1;
    } else if (isTerminal(record.status)) {
      await this.settle(record);
      report.settled += 1;
    } else if (record.updatedAt < deadline) {
      const ended = await this.finish(record.id, record.generation, {
        status: 'FAILED',
        error: { code: 'DOCUMENT_EXTRACTION_FAILED', message: 'Processing did not finish in time; submit the document again.' },
      });
      if (ended && isTerminal(ended.status)) report.failedStuck += 1;
    } else if (record.countedAs !== record.status) {
      await this.store.syncCounters(record);
      report.counted += 1;
    }
  }
}
