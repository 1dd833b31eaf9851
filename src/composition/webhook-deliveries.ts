import { SqsDeliveryQueue } from '../infrastructure/delivery-queue.ts';
import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { configuredUrlPolicy, paperflowConfiguration } from './configuration.ts';
import { builtOnFirstUse } from './built-on-first-use.ts';
import { sqsClient } from '../infrastructure/sqs-client.ts';
import { DeliveryAttempts, type AttemptQueue, type SignWebhook, type SubscriptionLookup } from '../webhooks/delivery-attempts.ts';
import { DeliveryHistory } from '../webhooks/delivery-history.ts';
import { DynamoDeliveryStore } from '../webhooks/aws/dynamodb-delivery-store.ts';
import type { DeliveryStore } from '../webhooks/delivery-store.ts';
import { RecordedEventPayloads, type EventPayloads } from '../webhooks/event-payloads.ts';
import { eventLister } from './events.ts';
import { OutboundConnectionPool, type HostResolver } from '../outbound/outbound-fetch.ts';
import { retrySchedule } from '../webhooks/retry-schedule.ts';
import pLimit from 'p-limit';
import { WebhookSender, type PostSlots } from '../webhooks/webhook-sender.ts';

// Built from the function's configuration (configuration.ts); clients are shared per process. The
// subscription lookup and the signature come from the subscriptions module, so they are passed in.

/** `batchReads`: for one queue consumer invocation, whose records' reads of deliveries go out together. */
export function deliveryStore(options: { batchReads?: boolean } = {}): DynamoDeliveryStore {
  return new DynamoDeliveryStore(dynamoDocumentClient(), paperflowConfiguration().resources.recordsTableName(), options);
}

/** `rememberForOneInvocation`: each event read once per queue consumer invocation. */
export function eventPayloads(options: { rememberForOneInvocation?: boolean } = {}): RecordedEventPayloads {
  return new RecordedEventPayloads(eventLister(), options);
}

export function attemptQueue(): AttemptQueue {
  const { resources } = paperflowConfiguration();
  return builtOnFirstUse(() => new SqsDeliveryQueue(sqsClient(), resources.queueUrl('webhookDelivery')));
}

export function deliveryHistory(): DeliveryHistory {
  return new DeliveryHistory(deliveryStore(), eventPayloads());
}

/** One per process, as the SDK clients are: consecutive deliveries to an endpoint reuse its connection. */
const webhookConnections = new OutboundConnectionPool();

/**
 * The POSTs in flight in this process, bounded (PAPERFLOW_WEBHOOK_MAX_CONCURRENT_POSTS): a consumer
 * invocation may start 250 at once (10 fan-outs of 25), and locally several invocations share one
 * process with the receiver; past the bound a POST waits for a slot instead of for its timeout.
 */
let webhookPostSlots: PostSlots | undefined;
function postSlots(): PostSlots {
  webhookPostSlots ??= pLimit(paperflowConfiguration().settings.webhookMaxConcurrentPosts);
  return webhookPostSlots;
}

/**
 * The delivery engine over the real table, queue and outbound fetch. A malformed
 * PAPERFLOW_WEBHOOK_RETRY_DELAYS, PAPERFLOW_WEBHOOK_TIMEOUT_SECONDS or PAPERFLOW_WEBHOOK_MAX_CONCURRENT_POSTS throws
 * when the configuration is read (configuration.ts), at start-up, naming the variable.
 */
export function deliveryAttempts({
  resolveHost,
  ...ports
}: {
  subscriptions: SubscriptionLookup;
  sign: SignWebhook;
  store?: DeliveryStore;
  events?: EventPayloads;
  /** The DNS lookups of endpoint hosts; the process's resolver, asked per POST, unless given. */
  resolveHost?: HostResolver;
}): DeliveryAttempts {
  const { settings } = paperflowConfiguration();
  const sender = new WebhookSender({ timeoutMs: settings.webhookTimeoutMs, policy: configuredUrlPolicy, connections: webhookConnections, slots: postSlots(), resolveHost });
  return new DeliveryAttempts({
    store: deliveryStore(),
    events: eventPayloads(),
    queue: attemptQueue(),
    schedule: retrySchedule(settings.webhookRetryDelaysSeconds),
    send: (request, sign) => sender.send(request, sign),
    ...ports,
  });
}
