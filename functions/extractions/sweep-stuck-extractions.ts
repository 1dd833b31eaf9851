import { extractionSettlement, stuckExtractionAfterMs } from '../../src/extractions/wiring.ts';

// Scheduled (EventBridge, every few minutes; locally on an interval): no extraction stays in flight
// past the deadline, and interrupted events, counters and deletes are finished.
export async function handler() {
  const report = await extractionSettlement().sweep(stuckExtractionAfterMs());
  if (report.failedStuck + report.settled + report.deleted + report.counted + report.skipped > 0) console.log(JSON.stringify({ level: 'info', sweep: report }));
  return report;
}
