// Schemas are typed by zod's core so rows may use zod/mini, whose tree-shaking keeps Lambda bundles
// small; classic zod schemas satisfy the same type.
import type { $ZodObject as ZodObject, $ZodType as ZodType, output as SchemaOutput } from 'zod/v4/core';
import type { Scope } from '../auth/scopes.ts';
import type { ResourceAccess } from './resource-access.ts';

// One typed table drives the deployed REST API (one Lambda per row), the local gateway, the 404/405
// answers for everything else, the authorizer's per-key policy and the OpenAPI document. Adding an
// endpoint is one row (a `defineRoute` in its feature's routes.ts, listed in src/manifest/routes.ts)
// plus one handler file that imports the row. The row's types live here, below both the features
// and src/http, so neither has to import the other.

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
  /**
   * Set on an operation the spec (public-api-v1.md) does not list: what it adds. The OpenAPI document
   * marks the operation `x-paperflow-extension: true` and opens its description with this.
   */
  extension?: string;
  tag: string;
  /** Query parameters by name; any other name, and a name sent twice, is 400 (a route without it takes none). */
  query?: ZodObject;
  /** Accepted request bodies by content type. Routes without it take no body. */
  requestBody?: Partial<Record<'application/json' | 'multipart/form-data', ZodType>>;
  /** The body may be left out altogether (no body, no Content-Type): the handler then gets none. */
  requestBodyOptional?: boolean;
  responses: Record<number, RouteResponse>;
  /** Error statuses this operation documents, besides the ones every authenticated route can return. */
  errorStatuses?: number[];
  /**
   * A create that takes an `Idempotency-Key` header (an extension, README "Idempotent creates"): the
   * shared HTTP chain replays the first answer to a repeat, so the handler does nothing for it.
   */
  acceptsIdempotencyKey?: boolean;
}

export const apiBasePath = '/api/public/v1';

/** The authorizer every non-public route runs first: its handler and what it may touch, like a row. */
export interface AuthorizerDefinition {
  handler: string;
  access: ResourceAccess;
}

/**
 * A row of the route table, keeping the exact types of its schemas: the handler that imports the row
 * gets its body and query types from them (see `RouteBody`, `RouteQuery`), so it cannot drift from
 * what the API validates and documents.
 */
export function defineRoute<TRoute extends RouteDefinition>(route: TRoute): TRoute {
  return route;
}

type RequestBodies = RouteDefinition['requestBody'];

/**
 * What the handler gets as `body`: the parsed JSON body, typed by the row's JSON schema; `undefined`
 * where the row also accepts another content type (a multipart body is streamed by the handler), or
 * takes no JSON at all.
 */
export type RouteBody<TRoute> = TRoute extends { requestBody: infer TBodies extends RequestBodies }
  ? TBodies extends { 'application/json': infer TSchema extends ZodType }
    ? keyof TBodies extends 'application/json'
      ? SchemaOutput<TSchema>
      : SchemaOutput<TSchema> | undefined
    : undefined
  : undefined;

/** What the handler gets as `query`: the row's query schema's output, else no parameters at all. */
export type RouteQuery<TRoute> = TRoute extends { query: infer TSchema extends ZodObject } ? SchemaOutput<TSchema> : Record<string, never>;
