import { httpHandler } from '../../src/http/http-handler.ts';
import { getExtractionRoute } from '../../src/extractions/routes.ts';
import { extractionService } from '../../src/composition/extractions.ts';

export const handler = httpHandler(getExtractionRoute, async ({ principal, pathParameters }) => ({
  status: 200,
  body: await extractionService().getExtraction(principal.workspaceId, pathParameters.extractionId!),
}));
