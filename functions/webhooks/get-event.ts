import { httpHandler } from '../../src/http/http-handler.ts';
import { getEventRoute } from '../../src/webhooks/event-routes.ts';
import { eventHistory } from '../../src/composition/webhook-events.ts';

export const handler = httpHandler(getEventRoute, async ({ principal, pathParameters }) => ({
  status: 200,
  body: await eventHistory().getEventPayload(principal.workspaceId, pathParameters.eventId!),
}));
