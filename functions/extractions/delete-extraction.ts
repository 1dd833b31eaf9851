import { httpHandler } from '../../src/http/http-handler.ts';
import { extractionRoutes } from '../../src/extractions/routes.ts';
import { extractionService } from '../../src/extractions/wiring.ts';

const route = extractionRoutes.find((candidate) => candidate.operationId === 'deleteExtraction')!;

export const handler = httpHandler(route, async ({ principal, pathParameters }) => {
  await extractionService().deleteExtraction(principal.workspaceId, pathParameters.extractionId!);
  return { status: 204 };
});
