import { httpHandler } from '../../src/http/http-handler.ts';
import { idempotentRequests } from '../../src/composition/idempotency.ts';
import { requestBodyStream } from '../../src/http/request-body.ts';
import { uploadExtractionRoute } from '../../src/extractions/routes.ts';
import { extractionServiceWithUploads } from '../../src/composition/extraction-uploads.ts';

export const handler = httpHandler(uploadExtractionRoute, async ({ principal, headers, event }) => ({
  status: 202,
  body: await extractionServiceWithUploads().uploadExtraction(principal.workspaceId, { ...requestBodyStream(event), contentType: headers['content-type']! }),
}), { idempotentRequests });
