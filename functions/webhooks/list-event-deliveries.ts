import { httpHandler } from '../../src/http/http-handler.ts';
import { parsePageRequest } from '../../src/platform/pagination.ts';
import { deliveryHistory } from '../../src/composition/webhook-deliveries.ts';
import { listEventDeliveriesRoute } from '../../src/webhooks/event-routes.ts';

export const handler = httpHandler(listEventDeliveriesRoute, async ({ principal, pathParameters, query }) => {
  const { page, size, subscriptionId } = query;
  return {
    status: 200,
    body: await deliveryHistory().listEventDeliveries(principal.workspaceId, pathParameters.eventId!, { subscriptionId }, parsePageRequest({ page, size })),
  };
});
