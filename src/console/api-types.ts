import type { ListedItem, ResponseBody } from '../client/api-answers.ts';

// The shapes the console reads, named for its views: each is the typed client's type of the answer
// that carries it (generated from the served OpenAPI document), so a change to the API shows here as
// a compile error rather than as a blank cell.

export type Extraction = ResponseBody<'/document-insights/extractions/{extractionId}', 'get'>;
export type ListedExtraction = ListedItem<'/document-insights/extractions'>;
export type ExtractionStatus = Extraction['status'];
export const extractionStatuses: ExtractionStatus[] = ['QUEUED', 'PROCESSING', 'COMPLETED', 'FAILED', 'REJECTED'];
export const terminalExtractionStatuses: ReadonlySet<ExtractionStatus> = new Set(['COMPLETED', 'FAILED', 'REJECTED']);

export type ExtractedField = NonNullable<Extraction['output']>['fields'][number];
/** `rows` on a `table` field only: one per row of its value, in the same order. */
export type TableRowMetadata = NonNullable<ExtractedField['metadata']['rows']>[number];
export type Placement = NonNullable<ExtractedField['metadata']['placement']>;

export type Feedback = ResponseBody<'/document-insights/extractions/{extractionId}/feedback', 'post'>;

export type WorkflowRun = ResponseBody<'/workflow-runs/{runId}', 'get'>;
export type ListedRun = ListedItem<'/workflow-runs'>;
export type RunStatus = WorkflowRun['status'];
export const runStatuses: RunStatus[] = ['PROCESSING', 'COMPLETED', 'FAILED', 'CLOSED'];
export type WorkflowStep = WorkflowRun['steps'][number];
export type StepStatus = WorkflowStep['status'];

export type EventEnvelope = ResponseBody<'/events/{eventId}', 'get'>;
export type ListedEvent = ListedItem<'/events'>;
export type EventType = ListedEvent['eventType'];
/** The spec's event types, in the order it lists them (a unit test holds them to the service's). */
export const eventTypes: EventType[] = ['document-insights.extraction.completed', 'document-insights.extraction.failed', 'document-insights.extraction.rejected', 'workflow.run.completed', 'workflow.run.failed'];
export type Delivery = ListedItem<'/events/{eventId}/deliveries'>;
export type DeliveryDetail = ResponseBody<'/events/{eventId}/deliveries/{deliveryId}', 'get'>;
export type DeliveryAttempt = DeliveryDetail['attempts'][number];
export type Subscription = ListedItem<'/event-subscriptions'>;
