import * as z from 'zod/mini';
import { pageQueryParameters } from '../platform/pagination.ts';
import type { ResourceAccess } from '../platform/resource-access.ts';
import { defineRoute, type RouteDefinition } from '../platform/route-table.ts';
import { extractionStatuses } from './extraction.ts';
import { maximumFeedbackMessageLength, maximumLabelKeyLength, maximumLabels, maximumLabelValueLength } from './extraction-requests.ts';

// zod/mini, not classic zod: these schemas are bundled into every extraction Lambda, and mini tree-shakes
// (a named `{ z }` import would keep all of it). Descriptions go to the global registry, which the
// OpenAPI document reads through toJSONSchema.

// JSON may carry a "__proto__" key, which zod drops from a record: refused instead of lost. A transform
// piped into the record is classic zod's preprocess: an issue raised here stops the pipe, and the OpenAPI
// document shows the record. Mini's transform hands over the parse payload, so the issue is pushed onto it.
const labelsSchema = z
  .pipe(
    z.transform((value: unknown, payload) => {
      if (value !== null && typeof value === 'object' && Object.hasOwn(value, '__proto__')) {
        payload.issues.push({ code: 'custom', message: 'is not allowed as a label key', path: ['__proto__'], input: value });
      }
      return value;
    }),
    z.record(z.string(), z.string()),
  )
  .register(z.globalRegistry, {
    description:
      `Up to ${maximumLabels} labels (docType counts as one); keys 1-${maximumLabelKeyLength} and values 1-${maximumLabelValueLength} characters, not blank, ` +
      'well-formed Unicode (no lone surrogate, no U+FFFD); the key __proto__ is refused (422). ' +
      'Returned unchanged; the reserved key docType selects the document type instead of default routing.',
  });

export const runErrorSchema = z.object({
  code: z.enum(['DOCUMENT_NOT_ROUTED', 'DOCUMENT_EXTRACTION_FAILED', 'DOCUMENT_REJECTED']),
  message: z.string(),
});

const integer = () => z.number().check(z.int());

const documentSummarySchema = z.object({
  fileId: z
    .optional(z.string())
    .register(z.globalRegistry, { description: 'The source file; for a URL document, the stored download (once fetched).' }),
  fileName: z.optional(z.string()),
  mimeType: z.optional(z.string()),
  size: z.optional(integer()),
  pageCount: z.optional(integer()),
});

const placementSchema = z
  .object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() })
  .register(z.globalRegistry, { description: 'Fractions of the page width and height, origin top-left (Textract convention), all in [0, 1], on the page as it was sent: a page OCR read turned upright (a photo sent sideways or upside down) keeps its boxes on the image as sent.' });

export const outputSchema = z.object({
  docType: z.optional(z.string()).register(z.globalRegistry, { description: 'The document type the extraction was routed to.' }),
  fieldCount: integer(),
  fields: z.array(
    z.object({
      id: z.string().register(z.globalRegistry, { description: 'Use as fieldId in feedback.' }),
      name: z.string(),
      type: z.string().register(z.globalRegistry, {
        description: 'string, number, amount, integer, date, datetime, currency, boolean, email, phone, iban, enum or table.',
      }),
      value: z.unknown().register(z.globalRegistry, {
        description:
          'Normalized per type; null when not found. A table field (line_items) holds its rows: one object per row with the columns the document prints, e.g. {"description": "Office Chair", "product_code": "FURN_7777", "quantity": 1, "unit": "Units", "unit_price": 70, "tax_rate": 15, "amount": 70}. ' +
          'Always the extracted value, also once corrected (see correctedValue).',
      }),
      correctedValue: z.optional(z.unknown()).register(z.globalRegistry, {
        description:
          'Extension: present once a reviewer corrected the field (feedback with correctedValue), on this extraction or on an earlier extraction of the same document ' +
          '(same SHA-256, document type, field name and type). The reviewed value in the format of value; null when the document does not show the field. ' +
          'Downstream readers should prefer it to value; document_insights steps do (values.<name>).',
        'x-paperflow-extension': true,
      }),
      correction: z
        .optional(
          z.object({
            correctedAt: z.string(),
            correctedBy: z.string().register(z.globalRegistry, { description: 'The id of the API key that sent the correction.' }),
            feedbackId: z.string().register(z.globalRegistry, { description: 'The feedback that carried it.' }),
            extractionId: z.string().register(z.globalRegistry, { description: 'The extraction it was made on: this one, or an earlier extraction of the same document.' }),
          }),
        )
        .register(z.globalRegistry, { description: 'Extension: when, by which key and with which feedback the field was corrected; present with correctedValue.', 'x-paperflow-extension': true }),
      metadata: z.object({
        extracted: z.boolean(),
        confidence: z.optional(z.number()).register(z.globalRegistry, { description: 'In [0, 1].' }),
        page: z.optional(integer()).register(z.globalRegistry, { description: '1-based; for a table, its first page.' }),
        placement: z.optional(placementSchema),
        rows: z
          .optional(
            z.array(
              z.object({
                confidence: z.number(),
                page: integer(),
                placement: z.optional(placementSchema),
                cells: z.record(z.string(), z.object({ confidence: z.number(), placement: z.optional(placementSchema) })).register(z.globalRegistry, {
                  description: 'Per column of the row (same keys as the row in value): its confidence and box.',
                }),
              }),
            ),
          )
          .register(z.globalRegistry, { description: 'Table fields only: one entry per row of value, in the same order.' }),
      }),
    }),
  ),
  warnings: z
    .optional(z.array(z.object({ code: z.string(), message: z.string() })))
    .register(z.globalRegistry, {
      description: 'Evidence set aside, e.g. EMBEDDED_INVOICE_CONFLICT: an embedded e-invoice XML that contradicts the visible page (page values are returned).',
    }),
});

const extractionFields = {
  id: z.string(),
  status: z.enum(extractionStatuses),
  outputAvailable: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
  completedAt: z.optional(z.string()),
  error: z.optional(runErrorSchema),
  labels: z.record(z.string(), z.string()),
  reviewRequired: z.optional(z.boolean()).register(z.globalRegistry, { description: 'True once feedback of type ERROR was given.' }),
};

export const extractionSummarySchema = z.object({ ...extractionFields, document: documentSummarySchema });

export const extractionSchema = z.object({
  ...extractionFields,
  document: z.extend(documentSummarySchema, {
    contentUrl: z
      .optional(z.string())
      .register(z.globalRegistry, { description: 'Pre-signed download URL minted for this response; omitted when the file is gone.' }),
  }),
  output: z.optional(outputSchema).register(z.globalRegistry, { description: 'Only once outputAvailable is true.' }),
});

export const createExtractionRequestSchema = z.object({
  document: z
    .object({
      fileId: z
        .optional(z.string())
        .register(z.globalRegistry, {
          description: 'An uploaded file of this workspace, file_ followed by 26 characters (a fileId that does not exist is 422 on document.fileId).',
        }),
      url: z
        .optional(z.string())
        .register(z.globalRegistry, { description: 'A public HTTPS URL; no user info, no fragment, no private or loopback host.' }),
      fileName: z
        .optional(z.string().check(z.minLength(1), z.maxLength(255)))
        .register(z.globalRegistry, { description: 'Names the stored download; only with url.' }),
    })
    .register(z.globalRegistry, { description: 'Exactly one of fileId and url: both or neither is 422 on document.' }),
  labels: z.optional(labelsSchema),
});

const uploadExtractionRequestSchema = z.object({
  file: z
    .string()
    .register(z.globalRegistry, { format: 'binary', description: 'The document: exactly one part named "file", at most 50 MB. Sent as the last part, it is stored while it arrives.' }),
  labels: z
    .optional(z.string())
    .register(z.globalRegistry, { description: 'A JSON object of labels (the rules of labels in createExtraction), as a JSON part or a text part holding JSON; at most one part.' }),
});

const isoDateTime = z.iso.datetime({ offset: true });

export const listExtractionsQuerySchema = z.object({
  ...pageQueryParameters,
  status: z.optional(z.enum(extractionStatuses)),
  from: z.optional(isoDateTime).register(z.globalRegistry, { description: 'Created at or after (ISO 8601).' }),
  to: z.optional(isoDateTime).register(z.globalRegistry, { description: 'Created at or before (ISO 8601).' }),
  sortBy: z
    .optional(z.enum(['createdAt', 'updatedAt', 'completedAt']))
    .register(z.globalRegistry, { description: 'Default createdAt. By completedAt, extractions still in flight sort as latest.' }),
  sort: z.optional(z.enum(['asc', 'desc'])).register(z.globalRegistry, { description: 'Default desc.' }),
  labels: z.optional(z.record(z.string(), z.string())).register(z.globalRegistry, {
    description: 'Deep object, labels[key]=value; an empty value matches extractions that have the label; several combine with AND.',
  }),
});

export const feedbackRequestSchema = z.object({
  message: z.string().check(z.minLength(1), z.maxLength(maximumFeedbackMessageLength)),
  type: z
    .optional(z.enum(['ERROR', 'INFO']))
    .register(z.globalRegistry, { description: 'Default ERROR, which sets reviewRequired on the extraction.' }),
  fieldId: z
    .optional(z.string())
    .register(z.globalRegistry, { description: 'An id from output.fields (fld_ followed by 26 characters); omit for feedback on the whole extraction.' }),
  correctedValue: z.optional(z.unknown()).register(z.globalRegistry, {
    description:
      'Extension: the value the field should have (needs fieldId), in the format of the output\'s value for its type: a number for amount, number and integer; ' +
      'true or false for boolean; YYYY-MM-DD for date; an ISO 4217 code for currency; one of the values of an enum; for a table, a list of rows, each an object ' +
      'of the field\'s columns with values of the column\'s type; null when the document does not show the field. Checked against the field\'s type in the ' +
      'workspace configuration (422 VALIDATION_FAILED with details such as correctedValue[1].amount) and normalized (an IBAN without spaces, a code in capitals). ' +
      'The output then shows it as the field\'s correctedValue with a correction note, and later extractions of the same document carry it.',
    'x-paperflow-extension': true,
  }),
});

const feedbackSchema = z.object({
  id: z.string(),
  extractionId: z.string(),
  message: z.string(),
  type: z.enum(['ERROR', 'INFO']),
  fieldId: z.nullable(z.string()),
  createdAt: z.string(),
  correctedValue: z
    .optional(z.unknown())
    .register(z.globalRegistry, { description: 'Extension: the corrected value as checked and normalized, when the feedback carried one.', 'x-paperflow-extension': true }),
});

const pageInfoSchema = z.object({ page: integer(), size: integer(), totalItems: integer(), totalPages: integer() });

// Starting routes record the FAILED event of an execution that could not start, and hand it to delivery.
const access: Record<'start' | 'upload' | 'read' | 'write' | 'remove', ResourceAccess> = {
  start: { recordsTable: 'readWrite', filesBucket: 'readWrite', stateMachines: { extraction: 'start' }, queues: { webhookDelivery: 'send' } },
  // The files API's direct upload, which removes what a refused upload left (see files/routes.ts).
  upload: { recordsTable: 'readWrite', filesBucket: 'readWriteDelete', stateMachines: { extraction: 'start' }, queues: { webhookDelivery: 'send' } },
  read: { recordsTable: 'read', filesBucket: 'read' },
  write: { recordsTable: 'readWrite', filesBucket: 'readWrite' },
  remove: { recordsTable: 'readWrite', filesBucket: 'readWriteDelete' },
};

const tag = 'Extraction';

export const createExtractionRoute = defineRoute({
  operationId: 'createExtraction',
  method: 'POST',
  path: '/document-insights/extractions',
  handler: 'functions/extractions/create-extraction.ts',
  acceptsIdempotencyKey: true,
  scope: 'extractions:write',
  access: access.start,
  summary: 'Extract an uploaded file (document.fileId) or a public HTTPS document (document.url).',
  tag,
  requestBody: { 'application/json': createExtractionRequestSchema },
  responses: { 202: { description: 'Accepted: the QUEUED extraction.', schema: extractionSummarySchema } },
  errorStatuses: [400, 409, 415, 422, 502],
});

export const uploadExtractionRoute = defineRoute({
  operationId: 'uploadExtraction',
  method: 'POST',
  path: '/document-insights/extractions/upload',
  handler: 'functions/extractions/upload-extraction.ts',
  acceptsIdempotencyKey: true,
  scope: 'extractions:write',
  access: access.upload,
  summary: 'Upload a document and extract it in one request (multipart: file, optional labels).',
  tag,
  requestBody: { 'multipart/form-data': uploadExtractionRequestSchema },
  responses: { 202: { description: 'Accepted: the QUEUED extraction.', schema: extractionSummarySchema } },
  errorStatuses: [400, 409, 413, 415, 422, 502],
});

export const listExtractionsRoute = defineRoute({
  operationId: 'listExtractions',
  method: 'GET',
  path: '/document-insights/extractions',
  handler: 'functions/extractions/list-extractions.ts',
  scope: 'extractions:read',
  access: access.read,
  summary: 'Extraction summaries (never output or contentUrl), filtered, sorted and paged with exact totals.',
  tag,
  query: listExtractionsQuerySchema,
  responses: { 200: { description: 'A page of summaries.', schema: z.object({ data: z.array(extractionSummarySchema), pageInfo: pageInfoSchema }) } },
  errorStatuses: [400, 409, 502],
});

export const getExtractionRoute = defineRoute({
  operationId: 'getExtraction',
  method: 'GET',
  path: '/document-insights/extractions/{extractionId}',
  handler: 'functions/extractions/get-extraction.ts',
  scope: 'extractions:read',
  access: access.read,
  summary: 'The extraction, with output once outputAvailable and a freshly minted document.contentUrl.',
  tag,
  responses: { 200: { description: 'The extraction.', schema: extractionSchema } },
  errorStatuses: [404, 502],
});

export const createExtractionFeedbackRoute = defineRoute({
  operationId: 'createExtractionFeedback',
  method: 'POST',
  path: '/document-insights/extractions/{extractionId}/feedback',
  handler: 'functions/extractions/create-extraction-feedback.ts',
  scope: 'extractions:write',
  access: access.write,
  summary: 'Feedback on an extraction or one of its fields; ERROR (the default) marks it for review. Extension: field feedback may carry correctedValue.',
  tag,
  requestBody: { 'application/json': feedbackRequestSchema },
  responses: { 201: { description: 'The recorded feedback.', schema: feedbackSchema } },
  errorStatuses: [400, 404, 409, 415, 422, 502],
});

export const deleteExtractionRoute = defineRoute({
  operationId: 'deleteExtraction',
  method: 'DELETE',
  path: '/document-insights/extractions/{extractionId}',
  handler: 'functions/extractions/delete-extraction.ts',
  scope: 'extractions:write',
  access: access.remove,
  summary: 'Permanently delete a terminal extraction with its output and feedback (409 while QUEUED or PROCESSING).',
  tag,
  responses: { 204: { description: 'Deleted.' } },
  errorStatuses: [400, 404, 409, 502],
});

/** This feature's rows, in the order the table lists them. */
export const extractionRoutes: RouteDefinition[] = [createExtractionRoute, uploadExtractionRoute, listExtractionsRoute, getExtractionRoute, createExtractionFeedbackRoute, deleteExtractionRoute];
