import type { RouteDefinition } from '../src/http/route-table.ts';
import type { BucketAccess, TableAccess } from './paperflow-function.ts';

/** What one operation's function may touch; everything it is not given, it cannot reach. */
export interface RouteResourceAccess {
  table?: TableAccess;
  filesBucket?: BucketAccess;
  deliveryQueue?: boolean;
}

/**
 * Operations that need more (or less) than the default below, by operationId. A row added to the
 * route table without an entry here gets the default; the infra tests fail on entries that name no
 * route, so this list cannot silently drift from the route table.
 */
export const routeResourceAccess: Record<string, RouteResourceAccess> = {};

/**
 * Public operations touch nothing; authenticated reads read the records table; authenticated writes
 * read and write it. Files and webhook deliveries are granted only where listed above.
 */
export function resourceAccessFor(route: RouteDefinition): RouteResourceAccess {
  const listed = routeResourceAccess[route.operationId];
  if (listed) return listed;
  if (route.scope === 'public') return {};
  return { table: route.method === 'GET' ? 'read' : 'readWrite' };
}
