import { httpHandler } from '../../src/http/http-handler.ts';
import { pageOf } from '../../src/platform/pagination.ts';
import { listWorkflowRunsRoute } from '../../src/workflows/routes.ts';
import { runViews } from '../../src/composition/workflow-reads.ts';
import { runListQueryOf } from '../../src/workflows/run-views.ts';

export const handler = httpHandler(listWorkflowRunsRoute, async ({ principal, query }) => {
  const listQuery = runListQueryOf(query);
  const { data, totalItems } = await runViews().listRuns(principal.workspaceId, listQuery);
  return { status: 200, body: pageOf(data, listQuery, totalItems) };
});
