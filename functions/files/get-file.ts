import { httpHandler } from '../../src/http/http-handler.ts';
import { fileRoutes } from '../../src/files/routes.ts';
import { fileLookup } from '../../src/files/lookup-wiring.ts';

const route = fileRoutes.find((candidate) => candidate.operationId === 'getFile')!;

export const handler = httpHandler(route, async ({ principal, pathParameters }) => ({
  status: 200,
  body: await fileLookup().getFile(principal.workspaceId, pathParameters.fileId!),
}));
