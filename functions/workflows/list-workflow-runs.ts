import { httpHandler } from '../../src/http/http-handler.ts';
import { pageOf } from '../../src/platform/pagination.ts';
import { listWorkflowRunsRoute } from '../../src/workflows/routes.ts';
import { runListQueryOf } from '../../src/workflows/run-service.ts';
import { runService } from '../../src/workflows/wiring.ts';

export const handler = httpHandler(listWorkflowRunsRoute, async ({ principal, query }) => {
  const listQuery = runListQueryOf(query);
  const { data, totalItems } = await runService().listRuns(principal.workspaceId, listQuery);
  return { status: 200, body: pageOf(data, listQuery, totalItems) };
});
