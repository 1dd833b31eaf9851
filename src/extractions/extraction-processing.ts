import { createHash } from 'node:crypto';
import {
  DocumentRejectedError,
  duplicatePolicyOf,
  totalArithmeticCheck,
  type ExtractDocumentOptions,
  type ExtractionConfiguration,
  type ExtractionOutcome,
  type ReadDocument,
  type ReadDocumentOptions,
} from '../extraction-engine/index.ts';
import { maximumFileBytes } from '../files/file-limits.ts';
import { fetchOutbound, OutboundRequestError, type HostResolver } from '../outbound/outbound-fetch.ts';
import type { OutboundUrlPolicy } from '../outbound/outbound-settings.ts';
import { inFlightStatuses, type RunError } from './extraction.ts';
import type { DownloadedDocuments } from './downloaded-documents.ts';
import type { ExtractionDocuments } from './extraction-documents.ts';
import type { ExtractionExecutionInput } from './extraction-executions.ts';
import type { ExtractionSettlement, TerminalOutcome } from './extraction-settlement.ts';
import type { ExtractionOutputs, ExtractionStore, StoredExtraction } from './extraction-store.ts';
import { messageOfCause, TransientProcessingError, type CaughtFailure } from '../platform/task-errors.ts';

/**
 * Errors the state machine tells apart by name (statemachines/extraction.asl.json): transient ones
 * (TransientProcessingError, src/platform/task-errors.ts) are retried with backoff; a rejection or a
 * fetch failure is caught into its terminal state with the message as the extraction's error message.
 * Anything else ends FAILED with a generic message.
 */
export { asTaskError, TransientProcessingError, type CaughtFailure } from '../platform/task-errors.ts';

export class DocumentFetchFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DocumentFetchFailedError';
  }
}

export interface DocumentEngine {
  read(bytes: Uint8Array, options: ReadDocumentOptions): Promise<ReadDocument>;
  extract(document: ReadDocument, options: ExtractDocumentOptions): ExtractionOutcome;
}

export interface ProcessingSettings {
  urlPolicy: () => OutboundUrlPolicy;
  downloadTimeoutMs: number;
  maximumRedirects: number;
  /** DNS for the download; the process's resolver (the system's) unless a test names one. */
  resolveHost?: HostResolver;
}

export interface MarkProcessingResult {
  /** False when this generation no longer needs work (ended by the sweeper, reprocessed, deleted). */
  proceed: boolean;
  needsDownload: boolean;
}

export type ExtractStepResult = { status: 'COMPLETED' | 'FAILED' | 'REJECTED' | 'SUPERSEDED'; code?: string; message?: string; pageCount?: number };


const genericFailureMessage = 'The document could not be processed; retry with backoff.';

/**
 * The work of the extraction state machine's Tasks, one method per Task, in three classes so that each
 * function bundles only what its Task uses: this one marks and records the outcome; `DocumentDownload`
 * fetches a URL document (the outbound client, content sniffing); `DocumentExtraction` reads and
 * extracts (the document engine: pdf.js, OCR, native addons).
 */
export class ExtractionProcessor {
  constructor(
    private readonly store: ExtractionStore,
    private readonly settlement: ExtractionSettlement,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** QUEUED → PROCESSING (updatedAt changes). Repeating it for the same generation is harmless. */
  async markProcessing(input: ExtractionExecutionInput): Promise<MarkProcessingResult> {
    const at = this.now().toISOString();
    const result = await this.store.mutate(input.extractionId, (current) =>
      current.generation === input.generation && current.status === 'QUEUED' ? { ...current, status: 'PROCESSING', updatedAt: at } : undefined,
    );
    const record = result.record;
    const proceed = record !== undefined && !record.deleting && record.generation === input.generation && record.status === 'PROCESSING';
    return { proceed, needsDownload: proceed && record.document.fileId === undefined && record.source !== undefined };
  }

  /** The last state: the terminal transition and its event, from a result or from a caught failure. */
  async recordOutcome(input: ExtractionExecutionInput & { outcome?: ExtractStepResult; failure?: CaughtFailure }): Promise<{ status: string }> {
    const terminal = input.failure ? outcomeOfFailure(input.failure) : outcomeOfResult(input.outcome);
    if (!terminal) return { status: 'SUPERSEDED' };
    const record = await this.settlement.finish(input.extractionId, input.generation, terminal);
    return { status: record?.status ?? 'SUPERSEDED' };
  }
}

/** The fetch Task: downloads a URL document through the outbound guard into the files store. */
export class DocumentDownload {
  constructor(
    private readonly store: ExtractionStore,
    private readonly downloads: DownloadedDocuments,
    private readonly settings: ProcessingSettings,
  ) {}

  /** Downloads a URL document through the outbound guard and stores it as a file of the workspace. */
  async fetchDocument(input: ExtractionExecutionInput): Promise<void> {
    const record = await inFlightGeneration(this.store, input);
    if (!record || record.document.fileId !== undefined || !record.source) return;
    const content = await this.download(record.source.url);
    const file = await this.downloads.store(record.workspaceId, content, record.source.fileName ?? fileNameFromUrl(record.source.url));
    await this.store.mutate(record.id, (current) =>
      current.generation === input.generation && current.document.fileId === undefined
        ? { ...current, document: { ...current.document, fileId: file.fileId, fileName: file.fileName, mimeType: file.mimeType, size: file.size } }
        : undefined,
    );
  }

  private async download(url: string): Promise<Buffer> {
    let response;
    try {
      response = await fetchOutbound(
        { url, headers: { 'user-agent': 'Paperflow/1 (document download)', accept: '*/*' } },
        {
          policy: this.settings.urlPolicy(),
          urlRules: { refuseFragment: true },
          timeoutMs: this.settings.downloadTimeoutMs,
          maxResponseBytes: maximumFileBytes,
          maxRedirects: this.settings.maximumRedirects,
          ...(this.settings.resolveHost ? { resolveHost: this.settings.resolveHost } : {}),
        },
      );
    } catch (error) {
      if (!(error instanceof OutboundRequestError)) throw error;
      if (error.transient) throw new TransientProcessingError(`Downloading the document failed: ${error.message}`);
      if (error.kind === 'too-large') throw new DocumentRejectedError('unsupported-format', 'The document at the URL exceeds the 50 MB limit.');
      throw new DocumentFetchFailedError(`Downloading the document failed: ${error.message}`);
    }
    if (response.status >= 500 || response.status === 429 || response.status === 408) {
      throw new TransientProcessingError(`Downloading the document failed: the server answered HTTP ${response.status}.`);
    }
    if (response.status < 200 || response.status > 299) {
      throw new DocumentFetchFailedError(`Downloading the document failed: the server answered HTTP ${response.status}.`);
    }
    return response.body;
  }
}

/** The extract Task: reads the document with the engine, extracts its fields and stores the output. */
export class DocumentExtraction {
  constructor(
    private readonly store: ExtractionStore,
    private readonly outputs: ExtractionOutputs,
    private readonly documents: ExtractionDocuments,
    private readonly engine: DocumentEngine,
    private readonly configurationOf: (workspaceId: string) => Promise<ExtractionConfiguration>,
  ) {}

  /**
   * Inspects, reads, routes, extracts and validates the document, applies the duplicate policy and
   * stores the output. Returns a small summary (the output itself never travels through the state
   * machine's payload, which is limited to 256 KB).
   */
  async extractDocument(input: ExtractionExecutionInput): Promise<ExtractStepResult> {
    const record = await inFlightGeneration(this.store, input);
    if (!record) return { status: 'SUPERSEDED' };
    const file = record.document.fileId ? await this.documents.find(record.workspaceId, record.document.fileId) : undefined;
    if (!file || file.status !== 'ready') {
      return { status: 'FAILED', code: 'DOCUMENT_EXTRACTION_FAILED', message: 'The source file is no longer available (files are staged for 30 days).' };
    }
    const bytes = await this.documents.read(file);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    await this.store.indexItems.rememberContentHash(record, sha256);
    if (record.sha256 !== sha256) {
      await this.store.mutate(record.id, (current) => (current.generation === input.generation ? { ...current, sha256 } : undefined));
    }

    const configuration = await this.configurationOf(record.workspaceId);
    // The field finder's arithmetic checks each OCR page: a total that does not add up has its lines read again.
    const document = await this.engine.read(bytes, { mediaType: file.mimeType, fileName: file.fileName, arithmeticCheck: totalArithmeticCheck({ configuration, labels: record.labels }) });
    const outcome = this.engine.extract(document, { configuration, labels: record.labels });
    if (outcome.status === 'FAILED') return { status: 'FAILED', code: outcome.code, message: outcome.message, pageCount: document.pageCount };
    if (outcome.status === 'REJECTED') return { status: 'REJECTED', code: 'DOCUMENT_REJECTED', message: outcome.message, pageCount: document.pageCount };

    if (duplicatePolicyOf(configuration, outcome.docType) === 'reject' && (await this.store.indexItems.hasEarlierWithContentHash(record, sha256))) {
      return {
        status: 'REJECTED',
        code: 'DOCUMENT_REJECTED',
        message: 'Duplicate content: an earlier extraction in this workspace has a document with the same SHA-256.',
        pageCount: outcome.pageCount,
      };
    }
    // The hash just read, not the record's: a downloaded document has none on its record yet.
    await this.outputs.put({ ...record, sha256 }, {
      docType: outcome.docType,
      fieldCount: outcome.fields.length,
      fields: outcome.fields,
      ...(outcome.warnings ? { warnings: outcome.warnings } : {}),
    });
    return { status: 'COMPLETED', pageCount: outcome.pageCount };
  }
}

/** The extraction when `input` is still its generation and in flight; undefined when the work is no longer wanted. */
async function inFlightGeneration(store: ExtractionStore, input: ExtractionExecutionInput): Promise<StoredExtraction | undefined> {
  const record = await store.get(input.extractionId);
  if (!record || record.deleting || record.generation !== input.generation || !inFlightStatuses.includes(record.status)) return undefined;
  return record;
}

function outcomeOfResult(result: ExtractStepResult | undefined): TerminalOutcome | undefined {
  if (!result || result.status === 'SUPERSEDED') return undefined;
  const pageCount = result.pageCount !== undefined ? { pageCount: result.pageCount } : {};
  if (result.status === 'COMPLETED') return { status: 'COMPLETED', ...pageCount };
  const error: RunError =
    result.status === 'REJECTED'
      ? { code: 'DOCUMENT_REJECTED', message: result.message ?? 'The document was rejected.' }
      : { code: result.code === 'DOCUMENT_NOT_ROUTED' ? 'DOCUMENT_NOT_ROUTED' : 'DOCUMENT_EXTRACTION_FAILED', message: result.message ?? genericFailureMessage };
  return { status: result.status, error, ...pageCount };
}

/** Lambda reports a thrown error's message inside a JSON Cause; local runs pass the message itself. */
export function outcomeOfFailure(failure: CaughtFailure): TerminalOutcome {
  const message = messageOfCause(failure.Cause);
  if (failure.Error === 'DocumentRejectedError') return { status: 'REJECTED', error: { code: 'DOCUMENT_REJECTED', message: message || 'The document was rejected.' } };
  if (failure.Error === 'DocumentFetchFailedError') return { status: 'FAILED', error: { code: 'DOCUMENT_EXTRACTION_FAILED', message: message || genericFailureMessage } };
  if (failure.Error === 'TransientProcessingError') {
    return { status: 'FAILED', error: { code: 'DOCUMENT_EXTRACTION_FAILED', message: `${message} Gave up after retries; retry with backoff.`.trim() } };
  }
  return { status: 'FAILED', error: { code: 'DOCUMENT_EXTRACTION_FAILED', message: genericFailureMessage } };
}

function fileNameFromUrl(url: string): string | undefined {
  const last = new URL(url).pathname.split('/').filter(Boolean).at(-1);
  if (!last) return undefined;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}
