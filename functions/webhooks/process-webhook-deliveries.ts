import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from '../../src/infrastructure/logger.ts';
import { forQueueMessage, loggedInvocation } from '../../src/platform/invocation-logging.ts';
import { MalformedDeliveryMessage, parseDeliveryQueueMessage } from '../../src/webhooks/delivery-queue-messages.ts';
import { recordedEventListeners } from '../../src/composition/event-listeners.ts';
import { deliveryQueueMessages } from '../../src/composition/webhooks.ts';

// The webhook delivery queue's consumer (SQS event source mapping, partial batch failures through
// Powertools' BatchProcessor); it also runs the domain listeners on recorded events
// (src/manifest/event-listeners.ts). The records of a batch are independent and handled together, so a
// batch takes about one webhook timeout. A record that fails (a malformed body, a downstream error) is
// reported and comes back after the visibility timeout; after maxReceiveCount receives SQS moves it to
// the dead-letter queue. A batch whose every record failed is answered like any other (not thrown), so
// each record's own receive count decides, as before.
export const handler = loggedInvocation(async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const messages = deliveryQueueMessages(recordedEventListeners());
  const handleRecord = (record: SQSRecord) =>
    forQueueMessage(record, async () => {
      try {
        const outcome = await messages.handle(parseDeliveryQueueMessage(record.body));
        logger.info('delivery queue message handled', { outcome });
      } catch (error) {
        if (error instanceof MalformedDeliveryMessage) logger.error('malformed delivery queue message', { problems: error.problems });
        else logger.warn('delivery queue message failed; it comes back after its visibility timeout', { error });
        throw error;
      }
    });
  // A processor per invocation: it keeps the batch's records and failures, and the local stack runs
  // batches of one process side by side.
  return processPartialResponse(event, handleRecord, new BatchProcessor(EventType.SQS), { throwOnFullBatchFailure: false });
});
