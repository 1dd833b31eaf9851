import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '../../src/infrastructure/logger.ts';
import { forQueueMessage, loggedInvocation } from '../../src/platform/invocation-logging.ts';
import { MalformedDeliveryMessage, parseDeliveryQueueMessage } from '../../src/webhooks/delivery-queue-messages.ts';
import { recordedEventListeners } from '../../src/manifest/event-listeners.ts';
import { deliveryQueueMessages } from '../../src/webhooks/wiring.ts';

// The webhook delivery queue's consumer (SQS event source mapping, partial batch failures); it also
// runs the domain listeners on recorded events (src/manifest/event-listeners.ts). The
// records of a batch are independent and handled together, so a batch takes about one webhook timeout.
// A record that fails (a malformed body, a downstream error) is reported and comes back after the
// visibility timeout; after maxReceiveCount receives SQS moves it to the dead-letter queue.
export const handler = loggedInvocation(async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const messages = deliveryQueueMessages(recordedEventListeners());
  const failed = await Promise.all(
    event.Records.map((record) =>
      forQueueMessage(record, async () => {
        try {
          const outcome = await messages.handle(parseDeliveryQueueMessage(record.body));
          logger.info('delivery queue message handled', { outcome });
          return undefined;
        } catch (error) {
          if (error instanceof MalformedDeliveryMessage) logger.error('malformed delivery queue message', { problems: error.problems });
          else logger.warn('delivery queue message failed; it comes back after its visibility timeout', { error });
          return record.messageId;
        }
      }),
    ),
  );
  return { batchItemFailures: failed.filter((id) => id !== undefined).map((itemIdentifier) => ({ itemIdentifier })) };
});
