import { eventLister } from './events.ts';
import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { paperflowConfiguration } from './configuration.ts';
import type { DeliveryAttempts } from '../webhooks/delivery-attempts.ts';
import { FailedDeliveryRecovery } from '../webhooks/delivery-recovery.ts';
import { attemptQueue, deliveryHistory, deliveryStore } from './webhook-deliveries.ts';
import { DeliveryPurge } from '../webhooks/delivery-purge.ts';
import { EventHistory, SubscriptionDeliveredEvents } from '../webhooks/event-history.ts';
import { subscriptionLookup, subscriptionStore, webhookDeliveries } from './webhooks.ts';

// The events API's objects, built from the function's configuration (configuration.ts).

export function eventHistory(): EventHistory {
  return new EventHistory({
    subscriptions: subscriptionStore(),
    events: eventLister(),
    delivered: new SubscriptionDeliveredEvents(dynamoDocumentClient(), paperflowConfiguration().resources.recordsTableName()),
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
export function deliveryPurge(): DeliveryPurge {
  return new DeliveryPurge(dynamoDocumentClient(), paperflowConfiguration().resources.recordsTableName());
}
