import { httpHandler } from '../../src/http/http-handler.ts';
import { RouteMatcher } from '../../src/http/route-matching.ts';
import { apiBasePath } from '../../src/platform/route-table.ts';
import { routes } from '../../src/manifest/routes.ts';
import { NotFoundError } from '../../src/platform/errors.ts';

// Deployed, API Gateway sends every method a resource does not define, and every unknown path, here;
// the route table then says 404 or 405 (with Allow) exactly as the local gateway does.
const matcher = new RouteMatcher(routes);

export const handler = httpHandler({ scope: 'public', anyQuery: true }, async ({ event }) => {
  const path = event.path.startsWith(apiBasePath) ? event.path.slice(apiBasePath.length) : undefined;
  if (path === undefined) throw new NotFoundError(`No operation exists at ${event.path}.`);
  matcher.match(event.httpMethod, path);
  // Only reachable if API Gateway routed a defined method here, which the stack never does.
  throw new NotFoundError(`No operation exists at ${event.path}.`);
});
