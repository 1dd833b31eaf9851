import { httpHandler } from '../../src/http/http-handler.ts';
import { extractionRoutes } from '../../src/extractions/routes.ts';
import { extractionService } from '../../src/extractions/wiring.ts';
import type { FeedbackRequest } from '../../src/extractions/extraction-service.ts';

const route = extractionRoutes.find((candidate) => candidate.operationId === 'createExtractionFeedback')!;

export const handler = httpHandler<FeedbackRequest>(route, async ({ principal, pathParameters, body }) => ({
  status: 201,
  body: await extractionService().addFeedback(principal.workspaceId, pathParameters.extractionId!, body),
}));
