import * as z from 'zod/mini';
import { defineRoute, type AuthorizerDefinition, type RouteDefinition } from '../platform/route-table.ts';
import { fileRoutes } from '../files/routes.ts';
import { extractionRoutes } from '../extractions/routes.ts';
import { subscriptionRoutes } from '../webhooks/routes.ts';
import { eventRoutes } from '../webhooks/event-routes.ts';
import { workflowRoutes } from '../workflows/routes.ts';

export const openApiDocumentSchema = z.looseObject({
  openapi: z.string(),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.unknown()),
});

// The one place that assembles the route table from the features' rows: the CDK stack (lib/), the
// local stack, the OpenAPI document, the bench and the tests read `routes` from here, and nothing in a
// feature or in src/http imports this module.

export const getOpenApiDocumentRoute = defineRoute({
  operationId: 'getOpenApiDocument',
  method: 'GET',
  path: '/openapi.json',
  handler: 'functions/platform/get-openapi-document.ts',
  scope: 'public',
  summary: 'This OpenAPI 3.1 document.',
  tag: 'Platform',
  responses: { 200: { description: 'The OpenAPI document.', schema: openApiDocumentSchema } },
});

/** Every implemented operation of the public API. Only what works is listed: no placeholders. */
export const routes: RouteDefinition[] = [
  getOpenApiDocumentRoute,
  ...fileRoutes,
  ...extractionRoutes,
  ...subscriptionRoutes,
  ...eventRoutes,
  ...workflowRoutes,
];

/**
 * The REQUEST authorizer in front of every non-public route (API Gateway deployed, the local gateway
 * locally): it reads keys and workspaces, nothing else.
 */
export const apiKeyAuthorizer: AuthorizerDefinition = {
  handler: 'functions/auth/authorize-request.ts',
  access: { recordsTable: 'read' },
};
