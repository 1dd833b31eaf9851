import { httpHandler } from '../../src/http/http-handler.ts';
import { pageOf } from '../../src/platform/pagination.ts';
import { listSubscriptionsRoute } from '../../src/webhooks/routes.ts';
import { subscriptionListQueryOf } from '../../src/webhooks/subscription-listing.ts';
import { subscriptionService } from '../../src/composition/webhooks.ts';

export const handler = httpHandler(listSubscriptionsRoute, async ({ principal, query }) => {
  const listQuery = subscriptionListQueryOf(query);
  const { data, totalItems } = await subscriptionService().listSubscriptions(principal.workspaceId, listQuery);
  return { status: 200, body: pageOf(data, listQuery, totalItems) };
});
