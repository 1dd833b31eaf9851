import { httpHandler } from '../../src/http/http-handler.ts';
import { getFileRoute } from '../../src/files/routes.ts';
import { fileLookup } from '../../src/composition/file-lookup.ts';

export const handler = httpHandler(getFileRoute, async ({ principal, pathParameters }) => ({
  status: 200,
  body: await fileLookup().getFile(principal.workspaceId, pathParameters.fileId!),
}));
