import { httpHandler } from '../../src/http/http-handler.ts';
import { requestBodyStream } from '../../src/http/request-body.ts';
import { extractionRoutes } from '../../src/extractions/routes.ts';
import { extractionServiceWithUploads } from '../../src/extractions/upload-wiring.ts';

const route = extractionRoutes.find((candidate) => candidate.operationId === 'uploadExtraction')!;

export const handler = httpHandler(route, async ({ principal, headers, event }) => ({
  status: 202,
  body: await extractionServiceWithUploads().uploadExtraction(principal.workspaceId, { ...requestBodyStream(event), contentType: headers['content-type']! }),
}));
