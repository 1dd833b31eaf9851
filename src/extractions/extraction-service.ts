import { decodeTime } from 'ulidx';
import { ConflictError, DownstreamError, NotFoundError, ValidationError, type ValidationIssue } from '../platform/errors.ts';
import type { DirectUploads } from '../files/direct-uploads.ts';
import type { MultipartBody } from '../files/multipart-upload.ts';
import { isIdentifier, newIdentifier } from '../infrastructure/identifiers.ts';
import { logger } from '../infrastructure/logger.ts';
import type { OutboundUrlPolicy } from '../outbound/outbound-settings.ts';
import {
  extractionSummary,
  isTerminal,
  type ExtractedField,
  type ExtractionOutput,
  type ExtractionRecord,
  type ExtractionView,
  type Feedback,
  type FeedbackType,
} from './extraction.ts';
import type { ExtractionDocuments } from './extraction-documents.ts';
import type { ExtractionExecutions } from './extraction-executions.ts';
import type { ExtractionListQuery } from './extraction-listing.ts';
import { documentReferenceIssues, labelIssues, type DocumentReference } from './extraction-requests.ts';
import type { CorrectedValueChecker } from './corrected-value-check.ts';
import type { ExtractionSettlement } from './extraction-settlement.ts';
import type { ExtractionOutputs, ExtractionStore, StoredExtraction } from './extraction-store.ts';

export interface CreateExtractionRequest {
  document: DocumentReference;
  labels?: Record<string, string>;
}

export interface FeedbackRequest {
  message: string;
  type?: FeedbackType;
  fieldId?: string;
  /** Extension: the field's right value (field-corrections.ts); needs fieldId. */
  correctedValue?: unknown;
}

/** The files domain's streamed multipart upload (same limits, 413 and 415), with the form's other text parts. */
export type FileUploads = Pick<DirectUploads, 'uploadFileWithTextParts'>;

export interface ExtractionServiceDependencies {
  store: ExtractionStore;
  outputs: ExtractionOutputs;
  /** Every service but upload-extraction's has it (`extractionService()`): reads of files and their download links. */
  documents?: ExtractionDocuments;
  /** Only upload-extraction's service has it (`extractionServiceWithUploads()`), so no other handler bundles busboy and file-type. */
  uploads?: FileUploads;
  executions: ExtractionExecutions;
  settlement: ExtractionSettlement;
  urlPolicy: () => OutboundUrlPolicy;
  /**
   * Checks a corrected value against the field's type in the workspace's configuration in force
   * (`correctedValueChecker`, corrected-value-check.ts). Only the feedback route's service has it
   * (`extractionServiceWithFeedback()`): it needs the engine's field definitions and configuration
   * schema, which no other handler bundles.
   */
  checkCorrectedValue?: CorrectedValueChecker;
  now?: () => Date;
}

/** The public API's extraction operations, free of HTTP and Lambda types. */
export class ExtractionService {
  private readonly now: () => Date;

  constructor(private readonly dependencies: ExtractionServiceDependencies) {
    this.now = dependencies.now ?? (() => new Date());
  }

  private documents(): ExtractionDocuments {
    if (!this.dependencies.documents) throw new Error('Reading documents needs extractionService().');
    return this.dependencies.documents;
  }

  /**
   * Validates, stores the QUEUED extraction and starts its execution. An unknown (or not yet ready)
   * `fileId` is a 422 on `document.fileId`: the request body names it, the path does not.
   */
  async createExtraction(workspaceId: string, request: CreateExtractionRequest): Promise<ExtractionView> {
    const issues: ValidationIssue[] = [
      ...documentReferenceIssues(request.document, this.dependencies.urlPolicy()),
      ...labelIssues(request.labels),
    ];
    if (issues.length > 0) throw new ValidationError(issues);
    let document: ExtractionRecord['document'] = {};
    let sha256: string | undefined;
    if (request.document.fileId !== undefined) {
      const file = await this.documents().find(workspaceId, request.document.fileId);
      if (!file || file.status !== 'ready') {
        const issue = file ? `File ${file.fileId} is not ready (${file.status}).` : 'No such file in this workspace.';
        throw new ValidationError([{ field: 'document.fileId', issue }]);
      }
      document = { fileId: file.fileId, fileName: file.fileName, mimeType: file.mimeType, size: file.size };
      sha256 = file.sha256;
    }
    return extractionSummary(
      await this.accept(workspaceId, {
        document,
        labels: request.labels ?? {},
        ...(sha256 ? { sha256 } : {}),
        ...(request.document.url !== undefined
          ? { source: { url: request.document.url, ...(request.document.fileName !== undefined ? { fileName: request.document.fileName } : {}) } }
          : {}),
      }),
    );
  }

  /**
   * `POST …/upload`: the `file` part streams into the files store (the files API's limits, 413 and
   * 415); the optional `labels` part is a JSON object (as a JSON part or a text part holding JSON).
   */
  async uploadExtraction(workspaceId: string, upload: MultipartBody): Promise<ExtractionView> {
    const uploads = this.dependencies.uploads;
    if (!uploads) throw new Error('uploadExtraction needs extractionServiceWithUploads().');
    // Labels are checked before the file is recorded: a refused upload leaves no file behind.
    const { file, textParts } = await uploads.uploadFileWithTextParts(workspaceId, upload, (parts) => {
      const issues = labelIssues(parseLabelsPart(parts.labels));
      if (issues.length > 0) throw new ValidationError(issues);
    });
    const labels = parseLabelsPart(textParts.labels);
    const document = { fileId: file.fileId, fileName: file.fileName, mimeType: file.mimeType, size: file.size };
    return extractionSummary(await this.accept(workspaceId, { document, labels, ...(file.sha256 ? { sha256: file.sha256 } : {}) }));
  }

  private async accept(
    workspaceId: string,
    content: Pick<ExtractionRecord, 'document' | 'labels' | 'source' | 'sha256'>,
  ): Promise<StoredExtraction> {
    const id = newIdentifier('ext');
    // createdAt is the identifier's own time, so id order and createdAt order never disagree.
    const createdAt = new Date(decodeTime(id.slice('ext_'.length))).toISOString();
    const record = await this.dependencies.store.create({
      id,
      workspaceId,
      status: 'QUEUED',
      generation: 1,
      createdAt,
      updatedAt: createdAt,
      outputAvailable: false,
      ...content,
    });
    // Known content is registered at once, so the duplicate policy also sees submissions in flight.
    if (record.sha256) await this.dependencies.store.indexItems.rememberContentHash(record, record.sha256);
    await this.startOrFail(record);
    return record;
  }

  /** A generation whose execution cannot start ends FAILED at once (with its event), never stuck. */
  private async startOrFail(record: StoredExtraction): Promise<void> {
    try {
      await this.dependencies.executions.start(record);
    } catch (error) {
      logger.error('processing could not be started', { extractionId: record.id, operation: 'StartExecution', error });
      await this.dependencies.settlement.finish(record.id, record.generation, {
        status: 'FAILED',
        error: { code: 'DOCUMENT_EXTRACTION_FAILED', message: 'Processing could not be started; submit the document again.' },
      });
      throw new DownstreamError('Processing could not be started; the extraction was recorded as FAILED. Retry with backoff.');
    }
  }

  async getExtraction(workspaceId: string, extractionId: string): Promise<ExtractionView> {
    const record = await this.existing(workspaceId, extractionId);
    const view = extractionSummary(record);
    const [output, contentUrl] = await Promise.all([
      record.outputAvailable ? this.dependencies.outputs.get(record.id) : Promise.resolve(undefined),
      record.document.fileId ? this.documents().contentUrl(workspaceId, record.document.fileId) : Promise.resolve(undefined),
    ]);
    if (contentUrl) view.document.contentUrl = contentUrl;
    if (output) view.output = output;
    return view;
  }

  async listExtractions(workspaceId: string, query: ExtractionListQuery): Promise<{ data: ExtractionView[]; totalItems: number }> {
    const { records, totalItems } = await this.dependencies.store.list(workspaceId, query);
    return { data: records.map(extractionSummary), totalItems };
  }

  /**
   * Feedback of type ERROR (the default) marks the extraction for review. Field-level feedback with
   * `correctedValue` also corrects the field: checked against its type, shown beside the extracted
   * value from now on, and carried by later extractions of the same document. `keyId` names the
   * API key that sent it (the correction's `correctedBy`).
   */
  private async checkedCorrectedValue(workspaceId: string, output: ExtractionOutput, field: ExtractedField, value: unknown): Promise<unknown> {
    const check = this.dependencies.checkCorrectedValue;
    if (!check) throw new Error('Checking a corrected value needs extractionServiceWithFeedback().');
    return check(workspaceId, output, field, value);
  }

  async addFeedback(workspaceId: string, extractionId: string, request: FeedbackRequest, keyId?: string): Promise<Feedback> {
    const record = await this.existing(workspaceId, extractionId);
    let output: ExtractionOutput | undefined;
    if (request.fieldId !== undefined) {
      output = record.outputAvailable && isIdentifier('fld', request.fieldId) ? await this.dependencies.outputs.get(record.id) : undefined;
      if (!output?.fields.some((field) => field.id === request.fieldId)) {
        throw new ValidationError([{ field: 'fieldId', issue: 'is not the id of a field in this extraction\'s output.' }]);
      }
    }
    const field = output?.fields.find((candidate) => candidate.id === request.fieldId);
    if (request.correctedValue !== undefined && (!output || !field)) {
      throw new ValidationError([{ field: 'correctedValue', issue: 'corrects one field: send it with fieldId.' }]);
    }
    const correctedValue =
      request.correctedValue !== undefined && output && field
        ? await this.checkedCorrectedValue(workspaceId, output, field, request.correctedValue)
        : undefined;
    const feedback: Feedback = {
      id: newIdentifier('fb'),
      extractionId,
      message: request.message,
      type: request.type ?? 'ERROR',
      fieldId: request.fieldId ?? null,
      createdAt: this.now().toISOString(),
      ...(request.correctedValue !== undefined ? { correctedValue } : {}),
    };
    if (request.correctedValue !== undefined && output && field) {
      if (!keyId) throw new Error('A correction names the key that made it: pass the principal\'s keyId.');
      await this.dependencies.outputs.correct(record, output, field, { correctedValue, correctedAt: feedback.createdAt, correctedBy: keyId, feedbackId: feedback.id, extractionId });
    }
    await this.dependencies.store.feedback.put(feedback);
    if (feedback.type === 'ERROR' && !record.reviewRequired) {
      await this.dependencies.store.mutate(extractionId, (current) => ({ ...current, reviewRequired: true }));
    }
    return feedback;
  }

  /** Terminal extractions only (409 while QUEUED or PROCESSING); removes output, feedback and objects. */
  async deleteExtraction(workspaceId: string, extractionId: string): Promise<void> {
    const record = await this.existing(workspaceId, extractionId);
    if (!isTerminal(record.status)) {
      throw new ConflictError(`Extraction ${extractionId} is ${record.status}; it can be deleted once it is COMPLETED, FAILED or REJECTED.`);
    }
    // It ended, so it has its event, even when the settlement that was to record it stopped.
    await this.dependencies.settlement.settleIfPending(record);
    const marked = await this.dependencies.store.mutate(extractionId, (current) =>
      current.workspaceId === workspaceId && isTerminal(current.status) ? { ...current, deleting: true } : undefined,
    );
    if (!marked.applied) {
      if (!marked.record || marked.record.deleting || marked.record.workspaceId !== workspaceId) throw new NotFoundError(`Extraction ${extractionId} does not exist.`);
      throw new ConflictError(`Extraction ${extractionId} is ${marked.record.status}; it can be deleted once it is terminal.`);
    }
    await this.dependencies.settlement.completeDeletion(marked.record!);
  }

  private async existing(workspaceId: string, extractionId: string): Promise<StoredExtraction> {
    // An id the service never mints names nothing, and one over the store's key size would be a 500.
    const record = isIdentifier('ext', extractionId) ? await this.dependencies.store.getInWorkspace(workspaceId, extractionId) : undefined;
    if (!record) throw new NotFoundError(`Extraction ${extractionId} does not exist.`);
    return record;
  }
}

function parseLabelsPart(text: string | undefined): Record<string, string> {
  if (text === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ValidationError([{ field: 'labels', issue: 'must be a JSON object of string values.' }]);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ValidationError([{ field: 'labels', issue: 'must be a JSON object of string values.' }]);
  }
  const notStrings = Object.entries(parsed).filter(([, value]) => typeof value !== 'string');
  if (notStrings.length > 0) throw new ValidationError(notStrings.map(([key]) => ({ field: `labels.${key}`, issue: 'must be a string.' })));
  return parsed as Record<string, string>;
}
