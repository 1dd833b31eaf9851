import { httpHandler } from '../../src/http/http-handler.ts';
import { getWorkflowRunRoute } from '../../src/workflows/routes.ts';
import { runService } from '../../src/workflows/wiring.ts';

export const handler = httpHandler(getWorkflowRunRoute, async ({ principal, pathParameters }) => ({
  status: 200,
  body: await runService().getRun(principal.workspaceId, pathParameters.runId!),
}));
