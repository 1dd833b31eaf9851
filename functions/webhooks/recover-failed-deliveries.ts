import { httpHandler } from '../../src/http/http-handler.ts';
import { failedDeliveryRecovery } from '../../src/composition/webhook-events.ts';
import { recoverFailedDeliveriesRoute } from '../../src/webhooks/routes.ts';

export const handler = httpHandler(recoverFailedDeliveriesRoute, async ({ principal, pathParameters, body }) => ({
  status: 202,
  body: await failedDeliveryRecovery().recoverFailedDeliveries(principal.workspaceId, pathParameters.subscriptionId!, body.since),
}));
