import type { RecordedEventListener } from '../events/event-listeners.ts';
import type { DataKeyProvider } from '../infrastructure/data-keys.ts';
import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { kmsClient } from '../infrastructure/kms-client.ts';
import { KmsDataKeys } from '../infrastructure/kms-data-keys.ts';
import { localKeyFileEnvironment, LocalFileDataKeys } from '../infrastructure/local-file-data-keys.ts';
import { requiredEnvironment, resourceEnvironment, secondsFromEnvironment } from '../infrastructure/resource-definitions.ts';
import type { DeliveryAttempts } from './delivery-attempts.ts';
import { DeliveryQueueMessages } from './delivery-queue-messages.ts';
import { deliveryAttempts, deliveryStore, eventPayloads } from './delivery-wiring.ts';
import { StoredSubscriptionLookup } from './subscription-lookup.ts';
import { DynamoSubscriptionQuota } from './aws/dynamodb-subscription-quota.ts';
import { DynamoSubscriptionStore } from './aws/dynamodb-subscription-store.ts';
import { SigningSecretCipher } from './subscription-secrets.ts';
import { SubscriptionService } from './subscription-service.ts';
import type { SubscriptionStore } from './subscription-store.ts';
import { signWebhook } from './webhook-signature.ts';

// Built from the environment the stack (deployed or local) sets. The one choice between deployed and
// local is here: a KMS key id (deployed, or LocalStack/moto, which serve KMS) or the embedded stack's
// key file.

/** The data keys of signing secrets: KMS when the function was granted the key, else the local key file. */
export function signingSecretDataKeys(): DataKeyProvider {
  const keyId = process.env[resourceEnvironment.signingKeyId];
  if (keyId) return new KmsDataKeys(kmsClient(), keyId);
  const keyFile = process.env[localKeyFileEnvironment];
  if (keyFile) return new LocalFileDataKeys(keyFile);
  throw new Error(`Neither ${resourceEnvironment.signingKeyId} nor ${localKeyFileEnvironment} is set: this function was not granted the signing key.`);
}

/** `batchReadsForOneInvocation`: for one queue consumer invocation (reads batched and remembered). */
export function subscriptionStore(options: { batchReadsForOneInvocation?: boolean } = {}): SubscriptionStore {
  return new DynamoSubscriptionStore(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName), options);
}

export function subscriptionService(): SubscriptionService {
  return new SubscriptionService({
    store: subscriptionStore(),
    quota: new DynamoSubscriptionQuota(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName)),
    cipher: () => new SigningSecretCipher(signingSecretDataKeys()),
    releaseHeldDeliveries: (subscriptionId) => webhookDeliveries().releaseHeldDeliveries(subscriptionId),
  });
}

/** The subscription's signing secret in clear (the delivery consumer signs with it). */
export function signingSecretOf(workspaceId: string, subscriptionId: string): Promise<string> {
  return subscriptionService().signingSecretOf(workspaceId, subscriptionId);
}

/** The delivery engine's view of subscriptions: the store, and the secret decrypted to sign. */
export function subscriptionLookup(): StoredSubscriptionLookup {
  return new StoredSubscriptionLookup(subscriptionStore(), () => new SigningSecretCipher(signingSecretDataKeys()));
}

/** The delivery engine with the real subscriptions and the signature of webhook-signature.ts. */
export function webhookDeliveries(): DeliveryAttempts {
  return deliveryAttempts({ subscriptions: subscriptionLookup(), sign: (input) => ({ ...signWebhook(input) }) });
}

/**
 * The delivery queue consumer's work: fan-outs, attempts and the recorded-event listeners
 * (functions/webhooks/process-webhook-deliveries.ts). Built once per invocation, and its reads are of
 * that invocation: the records of a batch read their deliveries and their subscriptions (with the
 * encrypted secrets) in one BatchGetItem each, and each event, subscription and decrypted secret once,
 * however many records need it.
 */
export function deliveryQueueMessages(listeners: readonly RecordedEventListener[] = []): DeliveryQueueMessages {
  const subscriptions = new StoredSubscriptionLookup(subscriptionStore({ batchReadsForOneInvocation: true }), () => new SigningSecretCipher(signingSecretDataKeys()));
  const events = eventPayloads({ rememberForOneInvocation: true });
  const attempts = deliveryAttempts({ subscriptions, sign: (input) => ({ ...signWebhook(input) }), store: deliveryStore({ batchReads: true }), events });
  return new DeliveryQueueMessages({ attempts, subscriptions, events, listeners });
}

/** After a resume, the sweeper waits this long before releasing once more (default 60 seconds). */
export function heldReleaseGraceMs(): number {
  return secondsFromEnvironment('PAPERFLOW_HELD_RELEASE_GRACE_SECONDS', 60) * 1000;
}
