import type { DeliverySubscription, SubscriptionLookup } from './delivery-attempts.ts';
import type { SigningSecretCipher } from './subscription-secrets.ts';
import type { SubscriptionStore } from './subscription-store.ts';
import type { SubscriptionRecord } from './subscription.ts';

/**
 * The delivery engine's view of subscriptions, over the subscription store: one GetItem per attempt,
 * one Query of the workspace's partition (at most 25 items) per fan-out, and the signing secret
 * decrypted only when an attempt is about to be sent (only the consumer is granted `kms:Decrypt`).
 */
export class StoredSubscriptionLookup implements SubscriptionLookup {
  constructor(
    private readonly store: SubscriptionStore,
    private readonly cipher: () => SigningSecretCipher,
  ) {}

  async find(workspaceId: string, subscriptionId: string): Promise<DeliverySubscription | undefined> {
    const record = await this.store.get(workspaceId, subscriptionId);
    return record ? deliverySubscriptionOf(record) : undefined;
  }

  async signingSecret(workspaceId: string, subscriptionId: string): Promise<string | undefined> {
    const encrypted = await this.store.encryptedSecretOf(workspaceId, subscriptionId);
    return encrypted ? this.cipher().decrypt(encrypted, { workspaceId, subscriptionId }) : undefined;
  }

  async ofWorkspace(workspaceId: string): Promise<DeliverySubscription[]> {
    return (await this.store.listWorkspace(workspaceId)).map(deliverySubscriptionOf);
  }
}

function deliverySubscriptionOf(record: SubscriptionRecord): DeliverySubscription {
  const { id, workspaceId, status, endpointUrl, eventTypes, filters } = record;
  return { id, workspaceId, status, endpointUrl, eventTypes: [...eventTypes], filters };
}
