import { httpHandler } from '../../src/http/http-handler.ts';
import { createExtractionFeedbackRoute } from '../../src/extractions/routes.ts';
import { extractionServiceWithFeedback } from '../../src/composition/extraction-feedback.ts';

export const handler = httpHandler(createExtractionFeedbackRoute, async ({ principal, pathParameters, body }) => ({
  status: 201,
  body: await extractionServiceWithFeedback().addFeedback(principal.workspaceId, pathParameters.extractionId!, body, principal.keyId),
}));
