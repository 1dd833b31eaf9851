import type { RecordedEventListener } from '../events/event-listeners.ts';
import { documentInsightsWaits, taskCallbacks } from './workflow-callbacks.ts';
import { documentInsightsResumer } from '../workflows/steps/document-insights-resume.ts';

// The domain listeners on recorded events (src/events/event-listeners.ts), run by the delivery queue's
// consumer on each outbox hand-off (functions/webhooks/process-webhook-deliveries.ts). A listener's
// needs are granted on that consumer's row (src/webhooks/triggers.ts).

/** Built per call, like the stores they use: the clients underneath are the cached ones. */
export function recordedEventListeners(): RecordedEventListener[] {
  return [documentInsightsResumer(() => ({ waits: documentInsightsWaits(), callbacks: taskCallbacks() }))];
}
