import { eventLister } from '../events/wiring.ts';
import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { requiredEnvironment, resourceEnvironment } from '../infrastructure/resource-definitions.ts';
import type { DeliveryAttempts } from './delivery-attempts.ts';
import { FailedDeliveryRecovery } from './delivery-recovery.ts';
import { attemptQueue, deliveryHistory, deliveryStore } from './delivery-wiring.ts';
import { DynamoDeliveryPurge } from './aws/dynamodb-delivery-purge.ts';
import { DynamoSubscriptionDeliveredEvents } from './aws/dynamodb-subscription-delivered-events.ts';
import { EventHistory } from './event-history.ts';
import { subscriptionLookup, subscriptionStore, webhookDeliveries } from './wiring.ts';

// The events API's objects, built from the environment the stack (deployed or local) sets.

export function eventHistory(): EventHistory {
  return new EventHistory({
    subscriptions: subscriptionStore(),
    events: eventLister(),
    delivered: new DynamoSubscriptionDeliveredEvents(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName)),
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
  return new DynamoDeliveryPurge(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName));
}
