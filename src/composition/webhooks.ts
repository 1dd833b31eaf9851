import type { RecordedEventListener } from '../events/event-listeners.ts';
import type { DataKeyProvider } from '../infrastructure/data-keys.ts';
import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { kmsClient } from '../infrastructure/kms-client.ts';
import { KmsDataKeys } from '../infrastructure/kms-data-keys.ts';
import { LocalFileDataKeys } from '../infrastructure/local-file-data-keys.ts';
import { configuredUrlPolicy, paperflowConfiguration } from './configuration.ts';
import type { DeliveryAttempts } from '../webhooks/delivery-attempts.ts';
import { DeliveryQueueMessages } from '../webhooks/delivery-queue-messages.ts';
import { deliveryAttempts, deliveryStore, eventPayloads } from './webhook-deliveries.ts';
import { StoredSubscriptionLookup } from '../webhooks/subscription-lookup.ts';
import { DynamoSubscriptionQuota } from '../webhooks/aws/dynamodb-subscription-quota.ts';
import { DynamoSubscriptionStore } from '../webhooks/aws/dynamodb-subscription-store.ts';
import { SigningSecretCipher } from '../webhooks/subscription-secrets.ts';
import { SubscriptionService } from '../webhooks/subscription-service.ts';
import type { SubscriptionStore } from '../webhooks/subscription-store.ts';
import { signWebhook } from '../webhooks/webhook-signature.ts';
import { lookupsRememberedFor } from '../outbound/outbound-fetch.ts';

// Built from the function's configuration (configuration.ts). The one choice between deployed and
// local is here: a KMS key id (deployed, or LocalStack/moto, which serve KMS) or the embedded stack's
// key file.

/** The data keys of signing secrets: KMS when the function was granted the key, else the local key file. */
export function signingSecretDataKeys(): DataKeyProvider {
  const key = paperflowConfiguration().resources.signingKey();
  return 'kmsKeyId' in key ? new KmsDataKeys(kmsClient(), key.kmsKeyId) : new LocalFileDataKeys(key.localKeyFile);
}

/** `batchReadsForOneInvocation`: for one queue consumer invocation (reads batched and remembered). */
export function subscriptionStore(options: { batchReadsForOneInvocation?: boolean } = {}): SubscriptionStore {
  return new DynamoSubscriptionStore(dynamoDocumentClient(), paperflowConfiguration().resources.recordsTableName(), options);
}

export function subscriptionService(): SubscriptionService {
  return new SubscriptionService({
    store: subscriptionStore(),
    quota: new DynamoSubscriptionQuota(dynamoDocumentClient(), paperflowConfiguration().resources.recordsTableName()),
    cipher: () => new SigningSecretCipher(signingSecretDataKeys()),
    releaseHeldDeliveries: (subscriptionId) => webhookDeliveries().releaseHeldDeliveries(subscriptionId),
    endpointUrlPolicy: configuredUrlPolicy(),
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
 * however many records need it, and each endpoint host's DNS answer once (still checked per POST).
 */
export function deliveryQueueMessages(listeners: readonly RecordedEventListener[] = []): DeliveryQueueMessages {
  const subscriptions = new StoredSubscriptionLookup(subscriptionStore({ batchReadsForOneInvocation: true }), () => new SigningSecretCipher(signingSecretDataKeys()));
  const events = eventPayloads({ rememberForOneInvocation: true });
  // Each endpoint host is looked up once per invocation; every POST still checks the answer and pins it.
  const attempts = deliveryAttempts({ subscriptions, sign: (input) => ({ ...signWebhook(input) }), store: deliveryStore({ batchReads: true }), events, resolveHost: lookupsRememberedFor() });
  return new DeliveryQueueMessages({ attempts, subscriptions, events, listeners });
}

/** After a resume, the sweeper waits this long before releasing once more (default 60 seconds). */
export function heldReleaseGraceMs(): number {
  return paperflowConfiguration().settings.heldReleaseGraceMs;
}
