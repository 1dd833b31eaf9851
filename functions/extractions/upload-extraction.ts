import { httpHandler } from '../../src/http/http-handler.ts';
import { requestBodyStream } from '../../src/http/request-body.ts';
import { extractionRoutes } from '../../src/extractions/routes.ts';
import { extractionService } from '../../src/extractions/wiring.ts';

const route = extractionRoutes.find((candidate) => candidate.operationId === 'uploadExtraction')!;

export const handler = httpHandler(route, async ({ principal, headers, event }) => ({
  status: 202,
  body: await extractionService().uploadExtraction(principal.workspaceId, requestBodyStream(event), headers['content-type']!),
}));
