import { httpHandler } from '../../src/http/http-handler.ts';
import { requestBodyStream } from '../../src/http/request-body.ts';
import { fileRoutes } from '../../src/files/routes.ts';
import { directUploads, fileService } from '../../src/files/wiring.ts';
import type { DeclaredUpload } from '../../src/files/file-service.ts';

const route = fileRoutes.find((candidate) => candidate.operationId === 'createFile')!;

export const handler = httpHandler<DeclaredUpload>(route, async ({ principal, contentType, headers, body, event }) => {
  if (contentType === 'application/json') return { status: 201, body: await fileService().createUploadSession(principal.workspaceId, body) };
  return { status: 201, body: await directUploads().uploadFile(principal.workspaceId, { ...requestBodyStream(event), contentType: headers['content-type']! }) };
});
