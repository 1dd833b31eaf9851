import { SqsDeliveryQueue } from '../infrastructure/delivery-queue.ts';
import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { requiredEnvironment, resourceEnvironment } from '../infrastructure/resource-definitions.ts';
import { sqsClient } from '../infrastructure/sqs-client.ts';
import { DeliveryAttempts, type AttemptQueue, type SignWebhook, type SubscriptionLookup } from './delivery-attempts.ts';
import { DeliveryHistory } from './delivery-history.ts';
import { DynamoDeliveryStore, type DeliveryStore } from './delivery-store.ts';
import { RecordedEventPayloads, type EventPayloads } from './event-payloads.ts';
import { eventLister } from '../events/wiring.ts';
import { OutboundConnectionPool } from '../outbound/outbound-fetch.ts';
import { retryScheduleFromEnvironment } from './retry-schedule.ts';
import { WebhookSender, webhookSenderSettingsFromEnvironment } from './webhook-sender.ts';

// Built from the environment the stack (deployed or local) sets; clients are shared per process. The
// subscription lookup and the signature come from the subscriptions module, so they are passed in.

/** `batchReads`: for one queue consumer invocation, whose records' reads of deliveries go out together. */
export function deliveryStore(options: { batchReads?: boolean } = {}): DynamoDeliveryStore {
  return new DynamoDeliveryStore(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName), options);
}

/** `rememberForOneInvocation`: each event read once per queue consumer invocation. */
export function eventPayloads(options: { rememberForOneInvocation?: boolean } = {}): RecordedEventPayloads {
  return new RecordedEventPayloads(eventLister(), options);
}

export function attemptQueue(): AttemptQueue {
  return new SqsDeliveryQueue(sqsClient(), requiredEnvironment(resourceEnvironment.webhookDeliveryQueueUrl));
}

export function deliveryHistory(): DeliveryHistory {
  return new DeliveryHistory(deliveryStore(), eventPayloads());
}

/** One per process, as the SDK clients are: consecutive deliveries to an endpoint reuse its connection. */
const webhookConnections = new OutboundConnectionPool();

/**
 * The delivery engine over the real table, queue and outbound fetch. A malformed
 * PAPERFLOW_WEBHOOK_RETRY_DELAYS or PAPERFLOW_WEBHOOK_TIMEOUT_SECONDS throws here, at start-up.
 */
export function deliveryAttempts(ports: { subscriptions: SubscriptionLookup; sign: SignWebhook; store?: DeliveryStore; events?: EventPayloads }): DeliveryAttempts {
  const sender = new WebhookSender({ ...webhookSenderSettingsFromEnvironment(), connections: webhookConnections });
  return new DeliveryAttempts({
    store: deliveryStore(),
    events: eventPayloads(),
    queue: attemptQueue(),
    schedule: retryScheduleFromEnvironment(),
    send: (request, sign) => sender.send(request, sign),
    ...ports,
  });
}
