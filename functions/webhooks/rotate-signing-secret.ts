import { httpHandler } from '../../src/http/http-handler.ts';
import { rotateSigningSecretRoute } from '../../src/webhooks/routes.ts';
import { subscriptionService } from '../../src/composition/webhooks.ts';

export const handler = httpHandler(rotateSigningSecretRoute, async ({ principal, pathParameters, body }) => ({
  status: 200,
  body: await subscriptionService().rotateSigningSecret(principal.workspaceId, pathParameters.subscriptionId!, body?.overlapHours),
}));
