import { httpHandler } from '../../src/http/http-handler.ts';
import { deleteSubscriptionRoute } from '../../src/webhooks/routes.ts';
import { subscriptionService } from '../../src/composition/webhooks.ts';

export const handler = httpHandler(deleteSubscriptionRoute, async ({ principal, pathParameters }) => {
  await subscriptionService().deleteSubscription(principal.workspaceId, pathParameters.subscriptionId!);
  return { status: 204 };
});
