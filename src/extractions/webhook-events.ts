import * as z from 'zod/mini';
import type { WebhookEventDefinition } from '../platform/webhook-event-table.ts';
import { outputSchema, runErrorSchema } from './routes.ts';

// The `data` of the extraction events as extractionEventOf (extraction-events.ts) writes it: the
// extraction as GET /extractions/{id} shows it, `extractionId` in place of `id`, without the
// download URL (an event outlives any pre-signed URL), `output` when COMPLETED, `error` otherwise.

const integer = () => z.number().check(z.int());

function extractionEventData<Status extends 'COMPLETED' | 'FAILED' | 'REJECTED'>(status: Status) {
  return z.object({
    extractionId: z.string(),
    status: z.literal(status),
    outputAvailable: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
    completedAt: z.string(),
    labels: z.record(z.string(), z.string()),
    document: z.object({
      fileId: z.optional(z.string()),
      fileName: z.optional(z.string()),
      mimeType: z.optional(z.string()),
      size: z.optional(integer()),
      pageCount: z.nullable(integer()),
    }),
    ...(status === 'COMPLETED'
      ? { output: z.optional(outputSchema).register(z.globalRegistry, { description: 'The extracted fields, as GET /extractions/{id} gives them.' }) }
      : { error: z.optional(runErrorSchema) }),
  });
}

export const extractionWebhookEvents: WebhookEventDefinition[] = [
  { eventType: 'document-insights.extraction.completed', summary: 'An extraction completed, with its output.', data: extractionEventData('COMPLETED') },
  { eventType: 'document-insights.extraction.failed', summary: 'An extraction failed, with the error.', data: extractionEventData('FAILED') },
  { eventType: 'document-insights.extraction.rejected', summary: 'An extraction was rejected (the document could not be read), with the reason.', data: extractionEventData('REJECTED') },
];
