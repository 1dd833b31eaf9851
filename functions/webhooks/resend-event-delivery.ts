import { httpHandler } from '../../src/http/http-handler.ts';
import { resendEventDeliveryRoute } from '../../src/webhooks/event-routes.ts';
import { resendingDeliveryAttempts } from '../../src/composition/webhook-events.ts';

export const handler = httpHandler(resendEventDeliveryRoute, async ({ principal, pathParameters }) => ({
  status: 202,
  body: await resendingDeliveryAttempts().resendDelivery(principal.workspaceId, pathParameters.eventId!, pathParameters.deliveryId!),
}));
