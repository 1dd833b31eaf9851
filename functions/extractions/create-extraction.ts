import { httpHandler } from '../../src/http/http-handler.ts';
import { extractionRoutes } from '../../src/extractions/routes.ts';
import { extractionService } from '../../src/extractions/wiring.ts';
import type { CreateExtractionRequest } from '../../src/extractions/extraction-service.ts';

const route = extractionRoutes.find((candidate) => candidate.operationId === 'createExtraction')!;

export const handler = httpHandler<CreateExtractionRequest>(route, async ({ principal, body }) => ({
  status: 202,
  body: await extractionService().createExtraction(principal.workspaceId, body),
}));
