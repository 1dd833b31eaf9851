import { httpHandler } from '../../src/http/http-handler.ts';
import { updateSubscriptionRoute } from '../../src/webhooks/routes.ts';
import { subscriptionService } from '../../src/composition/webhooks.ts';

export const handler = httpHandler(updateSubscriptionRoute, async ({ principal, pathParameters, body }) => ({
  status: 200,
  body: await subscriptionService().updateSubscription(principal.workspaceId, pathParameters.subscriptionId!, body),
}));
