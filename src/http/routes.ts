import * as z from 'zod/mini';
import type { RouteDefinition } from './route-table.ts';
import { fileRoutes } from '../files/routes.ts';
import { extractionRoutes } from '../extractions/routes.ts';

export const openApiDocumentSchema = z.looseObject({
  openapi: z.string(),
  info: z.object({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.unknown()),
});

/** Every implemented operation of the public API. Only what works is listed: no placeholders. */
export const routes: RouteDefinition[] = [
  {
    operationId: 'getOpenApiDocument',
    method: 'GET',
    path: '/openapi.json',
    handler: 'functions/platform/get-openapi-document.ts',
    scope: 'public',
    summary: 'This OpenAPI 3.1 document.',
    tag: 'Platform',
    responses: { 200: { description: 'The OpenAPI document.', schema: openApiDocumentSchema } },
  },
  ...fileRoutes,
  ...extractionRoutes,
];
