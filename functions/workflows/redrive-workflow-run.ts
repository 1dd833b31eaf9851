import { httpHandler } from '../../src/http/http-handler.ts';
import { redriveWorkflowRunRoute } from '../../src/workflows/routes.ts';
import { runService } from '../../src/composition/workflows.ts';

export const handler = httpHandler(redriveWorkflowRunRoute, async ({ principal, pathParameters }) => ({
  status: 202,
  body: await runService().redriveRun(principal.workspaceId, pathParameters.runId!),
}));
