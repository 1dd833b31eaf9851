import { workspaceStore } from '../../src/composition/auth.ts';
import { expiredEventPurge } from '../../src/composition/events.ts';
import { logger } from '../../src/infrastructure/logger.ts';
import { loggedInvocation } from '../../src/platform/invocation-logging.ts';
import { deliveryPurge } from '../../src/composition/webhook-events.ts';

// Scheduled (EventBridge, every 30 minutes; locally on an interval): deletes events past their 90 days with
// their deliveries, attempts and payload objects. Locally the TTL dynalite lacks; deployed DynamoDB
// TTL usually got there first and this finds nothing.
export const handler = loggedInvocation(async () => {
  const purge = expiredEventPurge(deliveryPurge(), workspaceStore(), (eventId, error) =>
    logger.warn('expired event not purged', { eventId, error: error instanceof Error ? error.message : String(error) }),
  );
  const report = await purge.purge();
  if (report.purged + report.failed > 0) logger.info('expired events purged', { expiredEventPurge: report });
  return report;
});
