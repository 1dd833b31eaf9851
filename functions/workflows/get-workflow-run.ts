import { httpHandler } from '../../src/http/http-handler.ts';
import { getWorkflowRunRoute } from '../../src/workflows/routes.ts';
import { runViews } from '../../src/composition/workflow-reads.ts';

export const handler = httpHandler(getWorkflowRunRoute, async ({ principal, pathParameters }) => ({
  status: 200,
  body: await runViews().getRun(principal.workspaceId, pathParameters.runId!),
}));
