// The shapes the console reads, as the public API documents them (the spec and the served OpenAPI
// document); only the fields the views use.

export type ExtractionStatus = 'QUEUED' | 'PROCESSING' | 'COMPLETED' | 'FAILED' | 'REJECTED';
export const extractionStatuses: ExtractionStatus[] = ['QUEUED', 'PROCESSING', 'COMPLETED', 'FAILED', 'REJECTED'];

export interface Placement {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface ExtractedField {
  id: string;
  name: string;
  type: string;
  value: unknown;
  /** Extension: a reviewer's value, beside the extracted one, and when and by which key it was given. */
  correctedValue?: unknown;
  correction?: { correctedAt: string; correctedBy: string; feedbackId: string; extractionId: string };
  /** `rows` on a `table` field only: one per row of its value, in the same order. */
  metadata?: { extracted?: boolean; confidence?: number; page?: number; placement?: Placement; rows?: TableRowMetadata[] };
}

export interface TableRowMetadata {
  confidence?: number;
  page?: number;
  placement?: Placement;
  /** By column name; a cell the row leaves empty has none. */
  cells?: Record<string, { confidence?: number; placement?: Placement }>;
}

export interface Extraction {
  id: string;
  status: ExtractionStatus;
  createdAt: string;
  updatedAt: string;
  completedAt?: string;
  reviewRequired?: boolean;
  labels?: Record<string, string>;
  error?: { code: string; message: string };
  document?: { fileId: string; fileName?: string; mimeType?: string; size?: number; pageCount?: number | null; contentUrl?: string | null };
  output?: { fieldCount: number; fields: ExtractedField[] };
}

export const terminalExtractionStatuses: ReadonlySet<ExtractionStatus> = new Set(['COMPLETED', 'FAILED', 'REJECTED']);

export interface Feedback {
  id: string;
  type: 'ERROR' | 'INFO';
  fieldId: string | null;
  message: string;
  correctedValue?: unknown;
}

export type RunStatus = 'PROCESSING' | 'COMPLETED' | 'FAILED' | 'CLOSED';
export type StepStatus = 'QUEUED' | 'PROCESSING' | 'COMPLETED' | 'FAILED' | 'SKIPPED';

export interface WorkflowRun {
  id: string;
  status: RunStatus;
  createdAt: string;
  completedAt?: string;
  durationMs?: number;
  parentRunId?: string;
  error?: { code: string; message: string };
  workflow: { id: string; name: string };
  progress: { stepsCompleted: number; stepsTotal: number };
  steps?: WorkflowStep[];
}

export interface WorkflowStep {
  id: string;
  name: string;
  type: string;
  status: StepStatus;
  dependsOn?: string[];
  durationMs?: number;
  message?: string;
  output?: unknown;
  nestedRuns?: { count: number; data: WorkflowRun[] };
}

export interface ListedEvent {
  eventId: string;
  eventType: string;
  occurredAt: string;
  deliverySummary: { total: number; succeeded: number; failed: number; pending: number };
}

export interface Delivery {
  id: string;
  subscriptionId: string;
  trigger: 'automatic' | 'manual';
  status: 'PENDING' | 'SUCCEEDED' | 'FAILED';
  attemptCount: number;
  maxAttempts: number;
  createdAt: string;
  lastResponseStatus: number | null;
}

export interface DeliveryAttempt {
  number: number;
  startedAt: string;
  durationMs: number | null;
  responseStatus: number | null;
  responseBody: string | null;
  error: { kind: string; message: string } | null;
  outcome: 'pending' | 'succeeded' | 'failed';
}

export interface DeliveryDetail extends Delivery {
  attempts: DeliveryAttempt[];
  attemptsOmitted: boolean;
}
