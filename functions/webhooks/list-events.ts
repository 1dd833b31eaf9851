import { httpHandler } from '../../src/http/http-handler.ts';
import { eventHistoryQueryOf } from '../../src/webhooks/event-history.ts';
import { listEventsRoute } from '../../src/webhooks/event-routes.ts';
import { eventHistory } from '../../src/composition/webhook-events.ts';

export const handler = httpHandler(listEventsRoute, async ({ principal, query }) => ({
  status: 200,
  body: await eventHistory().listEvents(principal.workspaceId, eventHistoryQueryOf(query)),
}));
