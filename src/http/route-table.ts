// Schemas are typed by zod's core so rows may use zod/mini, whose tree-shaking keeps Lambda bundles
// small; classic zod schemas satisfy the same type.
import type { $ZodObject as ZodObject, $ZodType as ZodType } from 'zod/v4/core';
import type { Scope } from '../auth/scopes.ts';
import type { ResourceAccess } from '../platform/resource-access.ts';

// What a route's function may touch is declared the same way as a trigger's (src/platform/resource-access.ts).
export type { ResourceAccess };

// One typed table drives the deployed REST API (one Lambda per row), the local gateway, the 404/405
// answers for everything else, the authorizer's per-key policy and the OpenAPI document. Adding an
// endpoint is one row here plus one handler file. Rows are added by the feature modules below.

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteResponse {
  description: string;
  schema?: ZodType;
}

export interface RouteDefinition {
  operationId: string;
  method: HttpMethod;
  /** Path below `/api/public/v1`, with `{name}` path parameters, as API Gateway writes them. */
  path: string;
  /** Module exporting `handler`, relative to the repository root. */
  handler: string;
  /** The scope a key needs; `public` routes need no key at all. */
  scope: Scope | 'public';
  /** AWS resources the handler uses; omitted means none. */
  access?: ResourceAccess;
  summary: string;
  tag: string;
  /** Query parameters by name; any other name, and a name sent twice, is 400 (a route without it takes none). */
  query?: ZodObject;
  /** Accepted request bodies by content type. Routes without it take no body. */
  requestBody?: Partial<Record<'application/json' | 'multipart/form-data', ZodType>>;
  responses: Record<number, RouteResponse>;
  /** Error statuses this operation documents, besides the ones every authenticated route can return. */
  errorStatuses?: number[];
}

export const apiBasePath = '/api/public/v1';
