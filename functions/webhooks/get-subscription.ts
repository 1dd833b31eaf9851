import { httpHandler } from '../../src/http/http-handler.ts';
import { getSubscriptionRoute } from '../../src/webhooks/routes.ts';
import { subscriptionService } from '../../src/composition/webhooks.ts';

export const handler = httpHandler(getSubscriptionRoute, async ({ principal, pathParameters }) => ({
  status: 200,
  body: await subscriptionService().getSubscription(principal.workspaceId, pathParameters.subscriptionId!),
}));
