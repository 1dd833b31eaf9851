import { logger } from '../../src/infrastructure/logger.ts';
import { loggedInvocation } from '../../src/platform/invocation-logging.ts';
import { heldReleaseGraceMs, subscriptionService } from '../../src/composition/webhooks.ts';

// Scheduled (EventBridge, every minute; locally on an interval): attempts held while a subscription
// was paused are released also when the resume's own release never ran.
export const handler = loggedInvocation(async () => {
  const report = await subscriptionService().releaseHeldOfResumed(heldReleaseGraceMs());
  if (report.subscriptions > 0) logger.info('held deliveries released', { heldRelease: report });
  return report;
});
