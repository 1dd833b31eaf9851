import { eventOutbox } from '../../src/events/wiring.ts';

// Scheduled (EventBridge, every minute; locally on an interval): every recorded event reaches
// delivery, also when its recorder stopped before handing it off.
export async function handler() {
  const report = await eventOutbox().drain();
  if (report.handedOff + report.failed > 0) console.log(JSON.stringify({ level: 'info', eventOutboxDrain: report }));
  return report;
}
