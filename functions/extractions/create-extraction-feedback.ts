import { httpHandler } from '../../src/http/http-handler.ts';
import { createExtractionFeedbackRoute } from '../../src/extractions/routes.ts';
import { extractionService } from '../../src/composition/extractions.ts';

export const handler = httpHandler(createExtractionFeedbackRoute, async ({ principal, pathParameters, body }) => ({
  status: 201,
  body: await extractionService().addFeedback(principal.workspaceId, pathParameters.extractionId!, body, principal.keyId),
}));
