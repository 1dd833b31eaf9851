import { httpHandler } from '../../src/http/http-handler.ts';
import { idempotentRequests } from '../../src/composition/idempotency.ts';
import { requestBodyStream } from '../../src/http/request-body.ts';
import { readRunInput } from '../../src/workflows/run-input.ts';
import { startWorkflowRunRoute } from '../../src/workflows/routes.ts';
import { runService } from '../../src/composition/workflows.ts';
import { formUploads } from '../../src/composition/files.ts';

export const handler = httpHandler(startWorkflowRunRoute, async ({ principal, headers, pathParameters, event }) => ({
  status: 202,
  body: await runService().startRun(principal.workspaceId, pathParameters.workflowId!, () =>
    readRunInput(principal.workspaceId, { ...requestBodyStream(event), contentType: headers['content-type'] }, { formUploads: formUploads() }),
  ),
}), { idempotentRequests });
