import { httpHandler } from '../../src/http/http-handler.ts';
import { idempotentRequests } from '../../src/composition/idempotency.ts';
import { createSubscriptionRoute } from '../../src/webhooks/routes.ts';
import { subscriptionService } from '../../src/composition/webhooks.ts';

export const handler = httpHandler(createSubscriptionRoute, async ({ principal, body }) => ({
  status: 201,
  body: await subscriptionService().createSubscription(principal.workspaceId, body),
}), { idempotentRequests });
