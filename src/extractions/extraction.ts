// The Extraction resource of the public API (spec: Resources > Extraction) and its life cycle.
import type { ExtractionWarning } from '../extraction-engine/index.ts';

export const extractionStatuses = ['QUEUED', 'PROCESSING', 'COMPLETED', 'FAILED', 'REJECTED'] as const;
export type ExtractionStatus = (typeof extractionStatuses)[number];

export const terminalStatuses: readonly ExtractionStatus[] = ['COMPLETED', 'FAILED', 'REJECTED'];
export const inFlightStatuses: readonly ExtractionStatus[] = ['QUEUED', 'PROCESSING'];

export function isTerminal(status: ExtractionStatus): boolean {
  return terminalStatuses.includes(status);
}

export type ExtractionErrorCode = 'DOCUMENT_NOT_ROUTED' | 'DOCUMENT_EXTRACTION_FAILED' | 'DOCUMENT_REJECTED';

export interface RunError {
  code: ExtractionErrorCode;
  message: string;
}

export interface DocumentSummary {
  fileId?: string;
  fileName?: string;
  mimeType?: string;
  size?: number;
  pageCount?: number;
}

export interface ExtractedField {
  id: string;
  name: string;
  type: string;
  value: unknown;
  /** Extension (field-corrections.ts): a reviewer's value; `value` stays the extracted one. */
  correctedValue?: unknown;
  correction?: CorrectionNote;
  metadata: {
    extracted: boolean;
    confidence?: number;
    page?: number;
    placement?: { x: number; y: number; width: number; height: number };
    /** Table fields only: per row of the value, its confidence, page and box, and per cell. */
    rows?: {
      confidence: number;
      page: number;
      placement?: { x: number; y: number; width: number; height: number };
      cells: Record<string, { confidence: number; placement?: { x: number; y: number; width: number; height: number } }>;
    }[];
  };
}

export interface ExtractionOutput {
  docType?: string;
  fieldCount: number;
  fields: ExtractedField[];
  /** Set aside evidence the client should know about, e.g. an embedded XML that contradicts the page. */
  warnings?: ExtractionWarning[];
}

/** The stored extraction: the API resource plus what processing needs. */
export interface ExtractionRecord {
  id: string;
  workspaceId: string;
  status: ExtractionStatus;
  /** 1 at creation; each reprocess starts a new generation with its own execution and event. */
  generation: number;
  createdAt: string;
  updatedAt: string;
  completedAt?: string;
  error?: RunError;
  labels: Record<string, string>;
  document: DocumentSummary;
  /** Where the document comes from when it is not an existing file yet. */
  source?: { url: string; fileName?: string };
  sha256?: string;
  outputAvailable: boolean;
  reviewRequired?: boolean;
}

export type FeedbackType = 'ERROR' | 'INFO';

/** When, by which API key and with which feedback a field's value was corrected. */
export interface CorrectionNote {
  correctedAt: string;
  correctedBy: string;
  feedbackId: string;
  /** The extraction the reviewer corrected: this one, or an earlier extraction of the same document. */
  extractionId: string;
}

export interface Feedback {
  id: string;
  extractionId: string;
  message: string;
  type: FeedbackType;
  fieldId: string | null;
  createdAt: string;
  /** Extension: the value the field should have had (field-level feedback only). */
  correctedValue?: unknown;
}

/** The API representation. `output` and `document.contentUrl` only from Get extraction. */
export interface ExtractionView {
  id: string;
  status: ExtractionStatus;
  outputAvailable: boolean;
  createdAt: string;
  updatedAt: string;
  completedAt?: string;
  error?: RunError;
  labels: Record<string, string>;
  document: DocumentSummary & { contentUrl?: string | null };
  reviewRequired?: boolean;
  output?: ExtractionOutput;
}

export function extractionSummary(record: ExtractionRecord): ExtractionView {
  return {
    id: record.id,
    status: record.status,
    outputAvailable: record.outputAvailable,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    ...(record.completedAt ? { completedAt: record.completedAt } : {}),
    ...(record.error ? { error: record.error } : {}),
    labels: record.labels,
    document: { ...record.document },
    ...(record.reviewRequired ? { reviewRequired: true } : {}),
  };
}
