import { eventOutbox } from '../../src/composition/events.ts';
import { logger } from '../../src/infrastructure/logger.ts';
import { loggedInvocation } from '../../src/platform/invocation-logging.ts';

// Scheduled (EventBridge, every minute; locally on an interval): every recorded event reaches
// delivery, also when its recorder stopped before handing it off.
export const handler = loggedInvocation(async () => {
  const report = await eventOutbox().drain();
  if (report.handedOff + report.failed > 0) logger.info('event outbox drain', { eventOutboxDrain: report });
  return report;
});
