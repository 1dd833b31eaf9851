import { httpHandler } from '../../src/http/http-handler.ts';
import { deleteExtractionRoute } from '../../src/extractions/routes.ts';
import { extractionService } from '../../src/composition/extractions.ts';

export const handler = httpHandler(deleteExtractionRoute, async ({ principal, pathParameters }) => {
  await extractionService().deleteExtraction(principal.workspaceId, pathParameters.extractionId!);
  return { status: 204 };
});
