import { httpHandler } from '../../src/http/http-handler.ts';
import { buildOpenApiDocument } from '../../src/http/openapi-document.ts';
import { getOpenApiDocumentRoute, routes } from '../../src/manifest/routes.ts';
import { webhookEvents } from '../../src/manifest/webhook-events.ts';
import { apiBasePath } from '../../src/platform/route-table.ts';

let document: Record<string, unknown> | undefined;

export const handler = httpHandler(getOpenApiDocumentRoute, async () => {
  document ??= buildOpenApiDocument(routes, apiBasePath, webhookEvents);
  return { status: 200, body: document };
});
