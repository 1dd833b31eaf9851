import { httpHandler } from '../../src/http/http-handler.ts';
import { extractionRoutes } from '../../src/extractions/routes.ts';
import { extractionService } from '../../src/extractions/wiring.ts';

const route = extractionRoutes.find((candidate) => candidate.operationId === 'getExtraction')!;

export const handler = httpHandler(route, async ({ principal, pathParameters }) => ({
  status: 200,
  body: await extractionService().getExtraction(principal.workspaceId, pathParameters.extractionId!),
}));
