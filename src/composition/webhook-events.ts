import { eventLister } from './events.ts';
import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { paperflowConfiguration } from './configuration.ts';
import type { DeliveryAttempts } from '../webhooks/delivery-attempts.ts';
import { FailedDeliveryRecovery } from '../webhooks/delivery-recovery.ts';
import { attemptQueue, deliveryHistory, deliveryStore } from './webhook-deliveries.ts';
import { DynamoDeliveryPurge } from '../webhooks/aws/dynamodb-delivery-purge.ts';
import { DynamoSubscriptionDeliveredEvents } from '../webhooks/aws/dynamodb-subscription-delivered-events.ts';
import { EventHistory } from '../webhooks/event-history.ts';
import { subscriptionLookup, subscriptionStore, webhookDeliveries } from './webhooks.ts';

// The events API's objects, built from the function's configuration (configuration.ts).

export function eventHistory(): EventHistory {
  return new EventHistory({
    subscriptions: subscriptionStore(),
    events: eventLister(),
    delivered: new DynamoSubscriptionDeliveredEvents(dynamoDocumentClient(), paperflowConfiguration().resources.recordsTableName()),
    deliveries: deliveryHistory(),
  });
}

/** The delivery engine as the resend route uses it: it finds the subscription and queues one attempt (it signs nothing). */
export function resendingDeliveryAttempts(): DeliveryAttempts {
  return webhookDeliveries();
}

/** `POST /event-subscriptions/{id}/recover`: finds the subscription, writes deliveries and queues their attempts (it signs nothing). */
export function failedDeliveryRecovery(): FailedDeliveryRecovery {
  return new FailedDeliveryRecovery({ store: deliveryStore(), subscriptions: subscriptionLookup(), queue: attemptQueue() });
}

/** Removes an expired event's deliveries and attempts (the events purge calls it first). */
export function deliveryPurge(): DynamoDeliveryPurge {
  return new DynamoDeliveryPurge(dynamoDocumentClient(), paperflowConfiguration().resources.recordsTableName());
}
