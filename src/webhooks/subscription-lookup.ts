import { logger } from '../infrastructure/logger.ts';
import type { DeliverySubscription, SigningSecrets, SubscriptionLookup } from './delivery-attempts.ts';
import type { EncryptedSigningSecret, SigningSecretCipher } from './subscription-secrets.ts';
import type { SubscriptionStore } from './subscription-store.ts';
import type { SubscriptionRecord } from './subscription.ts';

/**
 * The delivery engine's view of subscriptions, over the subscription store: per attempt one read of
 * the subscription with its encrypted secret, one Query of the workspace's partition (at most 25
 * items) per fan-out, and the secret decrypted only when an attempt is about to be sent (only the
 * consumer is granted `kms:Decrypt`).
 *
 * Build one per invocation: the cipher (and its key file or KMS client) is made once, and a secret
 * once decrypted is kept for the rest of the invocation under the exact ciphertext it came from, so a
 * subscription whose stored secret changes is decrypted again, never signed with the old one.
 *
 * A previous secret (a rotation's overlap) is decrypted and handed on only until it expires; the
 * first read that finds it expired removes it from the record (docs/webhooks.md, Secret rotation).
 */
export class StoredSubscriptionLookup implements SubscriptionLookup {
  private cipherInstance: SigningSecretCipher | undefined;
  private readonly decrypted = new Map<string, Promise<string>>();

  constructor(
    private readonly store: SubscriptionStore,
    private readonly cipher: () => SigningSecretCipher,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async find(workspaceId: string, subscriptionId: string): Promise<DeliverySubscription | undefined> {
    const record = await this.store.get(workspaceId, subscriptionId);
    return record ? deliverySubscriptionOf(record) : undefined;
  }

  async findWithSecret(workspaceId: string, subscriptionId: string): Promise<({ subscription: DeliverySubscription } & SigningSecrets) | undefined> {
    const found = await this.store.getForDelivery(workspaceId, subscriptionId);
    if (!found) return undefined;
    const secret = await this.decrypt(found.secretCiphertext, workspaceId, subscriptionId);
    const previous = found.previousSecret;
    if (previous && Date.parse(previous.expiresAt) > this.now().getTime()) {
      const previousSecret = { secret: await this.decrypt(previous.ciphertext, workspaceId, subscriptionId), expiresAt: previous.expiresAt };
      return { subscription: deliverySubscriptionOf(found.record), secret, previousSecret };
    }
    if (previous) await this.destroyExpired(subscriptionId, previous.expiresAt);
    return { subscription: deliverySubscriptionOf(found.record), secret };
  }

  async ofWorkspace(workspaceId: string): Promise<DeliverySubscription[]> {
    return (await this.store.listWorkspace(workspaceId)).map(deliverySubscriptionOf);
  }

  /** The expired secret signs nothing whether or not this write lands, so a failure only delays its removal. */
  private async destroyExpired(subscriptionId: string, expiresAt: string): Promise<void> {
    try {
      await this.store.destroyPreviousSecret(subscriptionId, expiresAt);
    } catch (error) {
      logger.warn('expired previous signing secret not removed yet; the next delivery removes it', { subscriptionId, error });
    }
  }

  private decrypt(encrypted: EncryptedSigningSecret, workspaceId: string, subscriptionId: string): Promise<string> {
    // The data key, IV and ciphertext together are the secret's version: a new secret changes all three.
    const version = `${workspaceId}/${subscriptionId}/${encrypted.keyProvider}/${encrypted.encryptedDataKey}/${encrypted.iv}/${encrypted.ciphertext}`;
    let secret = this.decrypted.get(version);
    if (!secret) {
      this.cipherInstance ??= this.cipher();
      secret = this.cipherInstance.decrypt(encrypted, { workspaceId, subscriptionId });
      this.decrypted.set(version, secret);
      secret.catch(() => this.decrypted.delete(version));
    }
    return secret;
  }
}

function deliverySubscriptionOf(record: SubscriptionRecord): DeliverySubscription {
  const { id, workspaceId, status, endpointUrl, eventTypes, filters } = record;
  return { id, workspaceId, status, endpointUrl, eventTypes: [...eventTypes], filters };
}
