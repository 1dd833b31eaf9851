import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod/mini';
import { defineRoute, type RouteBody, type RouteQuery } from '../../../src/platform/route-table.ts';
import { httpHandler, type HttpRequest } from '../../../src/http/http-handler.ts';
import { createExtractionRoute, listExtractionsRoute, uploadExtractionRoute } from '../../../src/extractions/routes.ts';
import { createFileRoute } from '../../../src/files/routes.ts';
import type { CreateExtractionRequest } from '../../../src/extractions/extraction-service.ts';
import type { ExtractionStatus } from '../../../src/extractions/extraction.ts';

// The types are the point here: `npm test` runs tsc over this file, so a row whose schema stops
// matching what its handler receives fails the build, not a request.

const noteRoute = defineRoute({
  operationId: 'createNote',
  method: 'POST',
  path: '/notes',
  handler: 'functions/notes/create-note.ts',
  scope: 'files:write',
  summary: 'A row for the types only.',
  tag: 'Notes',
  query: z.object({ draft: z.optional(z.enum(['true', 'false'])) }),
  requestBody: { 'application/json': z.object({ text: z.string(), pinned: z.optional(z.boolean()) }) },
  responses: { 201: { description: 'Created.' } },
});

describe('defineRoute', () => {
  it('returns the row itself, with the exact types of its schemas', () => {
    const row = { ...noteRoute };

    expect(defineRoute(row)).toBe(row);
    expectTypeOf<RouteBody<typeof noteRoute>>().toEqualTypeOf<{ text: string; pinned?: boolean | undefined }>();
    expectTypeOf<RouteQuery<typeof noteRoute>>().toEqualTypeOf<{ draft?: 'true' | 'false' | undefined }>();
  });

  it('types the body and query a handler receives from its row, with no type arguments', () => {
    httpHandler(noteRoute, async (request) => {
      expectTypeOf(request).toEqualTypeOf<HttpRequest<{ text: string; pinned?: boolean | undefined }, { draft?: 'true' | 'false' | undefined }>>();
      // @ts-expect-error: the schema has no `title`, so a handler reading it does not compile.
      void request.body.title;
      return { status: 201 };
    });
  });

  it('gives the public rows the body types their domain functions take', () => {
    expectTypeOf<RouteBody<typeof createExtractionRoute>>().toExtend<CreateExtractionRequest>();
    // A multipart-only row has no parsed body; a row taking JSON or multipart has one only for JSON.
    expectTypeOf<RouteBody<typeof uploadExtractionRoute>>().toEqualTypeOf<undefined>();
    expectTypeOf<RouteBody<typeof createFileRoute>>().toEqualTypeOf<{ fileName: string; size: number; mimeType: string } | undefined>();
    expectTypeOf<RouteQuery<typeof listExtractionsRoute>['status']>().toEqualTypeOf<ExtractionStatus | undefined>();
  });
});
