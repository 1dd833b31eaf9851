import { httpHandler } from '../../src/http/http-handler.ts';
import { buildOpenApiDocument } from '../../src/http/openapi-document.ts';
import { routes } from '../../src/http/routes.ts';

const route = routes.find((candidate) => candidate.operationId === 'getOpenApiDocument')!;
let document: Record<string, unknown> | undefined;

export const handler = httpHandler(route, async () => {
  document ??= buildOpenApiDocument(routes);
  return { status: 200, body: document };
});
