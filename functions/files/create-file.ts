import { httpHandler } from '../../src/http/http-handler.ts';
import { idempotentRequests } from '../../src/composition/idempotency.ts';
import { requestBodyStream } from '../../src/http/request-body.ts';
import { createFileRoute } from '../../src/files/routes.ts';
import { directUploads, fileService } from '../../src/composition/files.ts';

export const handler = httpHandler(createFileRoute, async ({ principal, headers, body, event }) => {
  // A body is parsed only from JSON (an upload session); multipart content is streamed from the event.
  if (body !== undefined) return { status: 201, body: await fileService().createUploadSession(principal.workspaceId, body) };
  return { status: 201, body: await directUploads().uploadFile(principal.workspaceId, { ...requestBodyStream(event), contentType: headers['content-type']! }) };
}, { idempotentRequests });
