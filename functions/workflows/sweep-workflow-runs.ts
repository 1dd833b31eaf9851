import { logger } from '../../src/infrastructure/logger.ts';
import { loggedInvocation } from '../../src/platform/invocation-logging.ts';
import { lostRunAfterMs, runService } from '../../src/composition/workflows.ts';

// Scheduled (EventBridge, every few minutes; locally on an interval): no run stays PROCESSING after its
// execution died, and every ended run gets its event and tells its parent.
export const handler = loggedInvocation(async () => {
  const report = await runService().sweep(lostRunAfterMs());
  if (report.failedLost + report.finished > 0) logger.info('workflow run sweep', { sweep: report });
  return report;
});
