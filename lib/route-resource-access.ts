import type { RouteDefinition } from '../src/http/route-table.ts';
import type { BucketAccess, TableAccess } from './paperflow-function.ts';

/** What one operation's function may touch; everything it is not given, it cannot reach. */
export interface RouteResourceAccess {
  table?: TableAccess;
  filesBucket?: BucketAccess;
  deliveryQueue?: boolean;
}

/** The route row declares what its handler uses (`access`); nothing declared, nothing granted. */
export function resourceAccessFor(route: RouteDefinition): RouteResourceAccess {
  const access = route.access ?? {};
  return {
    ...(access.recordsTable ? { table: access.recordsTable } : {}),
    ...(access.filesBucket ? { filesBucket: access.filesBucket } : {}),
    ...(access.webhookDeliveryQueue === 'send' ? { deliveryQueue: true } : {}),
  };
}
