import { extractionSettlement, stuckExtractionAfterMs } from '../../src/composition/extractions.ts';
import { logger } from '../../src/infrastructure/logger.ts';
import { loggedInvocation } from '../../src/platform/invocation-logging.ts';

// Scheduled (EventBridge, every few minutes; locally on an interval): no extraction stays in flight
// past the deadline, and interrupted events, counters and deletes are finished.
export const handler = loggedInvocation(async () => {
  const report = await extractionSettlement().sweep(stuckExtractionAfterMs());
  if (report.failedStuck + report.settled + report.deleted + report.counted + report.skipped > 0) logger.info('extraction sweep', { sweep: report });
  return report;
});
