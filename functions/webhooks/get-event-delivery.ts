import { httpHandler } from '../../src/http/http-handler.ts';
import { deliveryHistory } from '../../src/composition/webhook-deliveries.ts';
import { getEventDeliveryRoute } from '../../src/webhooks/event-routes.ts';

export const handler = httpHandler(getEventDeliveryRoute, async ({ principal, pathParameters }) => ({
  status: 200,
  body: await deliveryHistory().getDelivery(principal.workspaceId, pathParameters.eventId!, pathParameters.deliveryId!),
}));
