import { httpHandler } from '../../src/http/http-handler.ts';
import { idempotentRequests } from '../../src/composition/idempotency.ts';
import { createExtractionRoute } from '../../src/extractions/routes.ts';
import { extractionService } from '../../src/composition/extractions.ts';

export const handler = httpHandler(createExtractionRoute, async ({ principal, body }) => ({
  status: 202,
  body: await extractionService().createExtraction(principal.workspaceId, body),
}), { idempotentRequests });
