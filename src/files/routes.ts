import * as z from 'zod/mini';
import type { ResourceAccess } from '../platform/resource-access.ts';
import { defineRoute, type RouteDefinition } from '../platform/route-table.ts';
import { maximumFileBytes } from './file-limits.ts';

// zod/mini, not classic zod: these schemas are bundled into every file Lambda, and mini tree-shakes.
// Descriptions go to the global registry, which the OpenAPI document reads through toJSONSchema.
const blockedReasonSchema = z
  .object({
    code: z.enum(['UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE', 'VALIDATION_FAILED']),
    message: z.string(),
  })
  .register(z.globalRegistry, { description: 'Why an uploaded object was refused: the code a direct upload would have answered.' });

const fileFields = {
  fileId: z.string().register(z.globalRegistry, { description: 'Identifier, prefixed "file_".' }),
  fileName: z
    .string()
    .register(z.globalRegistry, { description: 'The client\'s name, cleaned: no control characters or path separators, at most 255 characters.' }),
  mimeType: z
    .string()
    .register(z.globalRegistry, { description: 'Sniffed from the content, never taken from the client (declared value while pending_upload).' }),
  size: z.number().check(z.int()).register(z.globalRegistry, { description: 'Bytes (declared value while pending_upload).' }),
  sha256: z.optional(z.string()).register(z.globalRegistry, { description: 'Hex SHA-256 of the content; present once ready.' }),
  createdAt: z.string().register(z.globalRegistry, { description: 'UTC ISO 8601.' }),
  status: z.enum(['ready', 'pending_upload', 'blocked']).register(z.globalRegistry, {
    description:
      'ready: stored and checked. pending_upload: upload session created, bytes not yet received or checked. blocked: refused and deleted, see blockedReason.',
  }),
  blockedReason: z.optional(blockedReasonSchema),
};

export const uploadedFileSchema = z.object(fileFields);

export const fileSchema = z.object({
  ...fileFields,
  contentUrl: z
    .optional(z.string())
    .register(z.globalRegistry, { description: 'Pre-signed download URL, minted for this response; only when ready.' }),
  contentUrlExpiresAt: z
    .optional(z.string())
    .register(z.globalRegistry, { description: 'When contentUrl stops working (default 15 minutes after the request).' }),
});

export const uploadSessionRequestSchema = z.object({
  fileName: z.string().check(z.minLength(1), z.maxLength(1024)),
  size: z
    .number()
    .check(z.int(), z.positive())
    .register(z.globalRegistry, { description: `Bytes; more than ${maximumFileBytes} (50 MB) is 413.` }),
  mimeType: z
    .string()
    .check(z.maxLength(255), z.regex(/^[\w.+-]+\/[\w.+-]+$/, 'Expected a media type such as application/pdf.'))
    .register(z.globalRegistry, { description: 'Informational; the stored type is sniffed from the content once uploaded.' }),
});

export const uploadSessionSchema = z.object({
  fileId: z.string(),
  fileName: z.string(),
  status: z.literal('pending_upload'),
  createdAt: z.string(),
  upload: z
    .object({
      url: z.string(),
      fields: z
        .record(z.string(), z.string())
        .register(z.globalRegistry, { description: 'Send these form fields first, then the file as the field "file".' }),
      expiresAt: z.string(),
    })
    .register(z.globalRegistry, {
      description: 'A pre-signed S3 POST for files too large for API Gateway (10 MB); its policy allows 1 byte to 50 MB.',
    }),
});

const multipartUploadSchema = z.object({
  file: z
    .string()
    .register(z.globalRegistry, { format: 'binary', description: 'The file content: exactly one part named "file", at most 50 MB. Sent as the last part, it is stored while it arrives.' }),
  fileName: z.optional(z.string()).register(z.globalRegistry, { description: 'Optional name; defaults to the file part\'s filename.' }),
});

const fileAccess: Record<'write' | 'read', ResourceAccess> = {
  // Delete: a direct upload removes what S3 got of a refused upload, and a streamed object it replaced
  // with an exact copy (docs/files.md); reading the object back is what makes that copy.
  write: { recordsTable: 'readWrite', filesBucket: 'readWriteDelete' },
  read: { recordsTable: 'read', filesBucket: 'read' },
};

export const createFileRoute = defineRoute({
  operationId: 'createFile',
  method: 'POST',
  path: '/files',
  handler: 'functions/files/create-file.ts',
  acceptsIdempotencyKey: true,
  scope: 'files:write',
  access: fileAccess.write,
  summary: 'Upload a file (multipart/form-data), or start an upload session for a pre-signed S3 POST (JSON).',
  tag: 'Files',
  requestBody: { 'multipart/form-data': multipartUploadSchema, 'application/json': uploadSessionRequestSchema },
  responses: {
    201: {
      description: 'multipart/form-data: the stored file. application/json: the upload session; the file becomes ready once uploaded and checked.',
      schema: z.union([uploadedFileSchema, uploadSessionSchema]),
    },
  },
  errorStatuses: [400, 413, 415, 422, 502],
});

export const getFileRoute = defineRoute({
  operationId: 'getFile',
  method: 'GET',
  path: '/files/{fileId}',
  handler: 'functions/files/get-file.ts',
  scope: 'files:read',
  access: fileAccess.read,
  summary: 'File metadata with a freshly signed contentUrl.',
  tag: 'Files',
  responses: { 200: { description: 'The file.', schema: fileSchema } },
  errorStatuses: [404, 502],
});

/** This feature's rows, in the order the table lists them. */
export const fileRoutes: RouteDefinition[] = [createFileRoute, getFileRoute];

