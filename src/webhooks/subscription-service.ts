import { logger } from '../infrastructure/logger.ts';
import { callDownstream } from '../platform/downstream-calls.ts';
import { isIdentifier, newIdentifier } from '../infrastructure/identifiers.ts';
import { NotFoundError } from '../platform/errors.ts';
import { planSubscriptionList, type SubscriptionListQuery } from './subscription-listing.ts';
import type { SubscriptionQuota } from './subscription-quota.ts';
import { checkEndpointUrl, defaultOverlapHours, type CreateSubscriptionRequest } from './subscription-requests.ts';
import type { OutboundUrlPolicy } from '../outbound/outbound-settings.ts';
import { newSigningSecret, type SigningSecretCipher } from './subscription-secrets.ts';
import type { SubscriptionStore } from './subscription-store.ts';
import {
  subscriptionView,
  type CreatedSubscription,
  type RotatedSigningSecret,
  type SubscriptionChanges,
  type SubscriptionRecord,
  type SubscriptionView,
} from './subscription.ts';

export interface SubscriptionServiceDependencies {
  store: SubscriptionStore;
  quota: SubscriptionQuota;
  /** Built only by the operations that touch the secret: only they are granted the signing key. */
  cipher: () => SigningSecretCipher;
  /** Queues again the attempts held while the subscription was paused (DeliveryAttempts.releaseHeldDeliveries). */
  releaseHeldDeliveries: (subscriptionId: string) => Promise<number>;
  /** Whether an endpoint may use plain http or a private address: never deployed, yes in local development. */
  endpointUrlPolicy: OutboundUrlPolicy;
  now?: () => Date;
}

const notFound = () => new NotFoundError('The event subscription does not exist.');

/** Subscriptions of one workspace: requests arrive validated (subscription-requests.ts). */
export class SubscriptionService {
  private readonly now: () => Date;

  constructor(private readonly dependencies: SubscriptionServiceDependencies) {
    this.now = dependencies.now ?? (() => new Date());
  }

  /**
   * Encrypts a new secret, takes a quota slot, then writes the subscription; a write that fails gives
   * the slot back. The secret is in the answer and nowhere else in clear.
   */
  async createSubscription(workspaceId: string, request: CreateSubscriptionRequest): Promise<CreatedSubscription> {
    const { store, quota, cipher } = this.dependencies;
    checkEndpointUrl(request.endpointUrl, this.dependencies.endpointUrlPolicy);
    const id = newIdentifier('sub');
    const signingSecret = newSigningSecret();
    const secretCiphertext = await callDownstream('data key for a signing secret', () => cipher().encrypt(signingSecret, { workspaceId, subscriptionId: id }));
    const createdAt = this.now().toISOString();
    const record: SubscriptionRecord = {
      id,
      workspaceId,
      name: request.name,
      endpointUrl: request.endpointUrl,
      eventTypes: request.eventTypes,
      filters: request.filters ?? {},
      status: 'active',
      createdAt,
      updatedAt: createdAt,
    };
    await quota.reserve(workspaceId, id);
    try {
      await store.create(record, secretCiphertext);
    } catch (error) {
      await quota.release(workspaceId, id);
      throw error;
    }
    return { ...subscriptionView(record), signingSecret };
  }

  /**
   * A new signing secret, returned here once. For `overlapHours` (default 24) the secret it replaces
   * keeps signing beside it, then is removed; 0 removes it at once. A rotation within an overlap
   * replaces the previous secret: the oldest is dropped at once, so at most two ever sign.
   */
  async rotateSigningSecret(workspaceId: string, subscriptionId: string, overlapHours = defaultOverlapHours): Promise<RotatedSigningSecret> {
    const { store, cipher } = this.dependencies;
    if (!isIdentifier('sub', subscriptionId)) throw notFound();
    const signingSecret = newSigningSecret();
    const secretCiphertext = await callDownstream('data key for a signing secret', () => cipher().encrypt(signingSecret, { workspaceId, subscriptionId }));
    const now = this.now();
    // Whole seconds: a delivery's signed time is whole seconds, so the overlap ends on one.
    const overlapSeconds = Math.round(overlapHours * 3600);
    const previousExpiresAt = overlapSeconds > 0 ? new Date(Math.floor(now.getTime() / 1000) * 1000 + overlapSeconds * 1000).toISOString() : undefined;
    const rotated = await store.rotateSecret(workspaceId, subscriptionId, secretCiphertext, { previousExpiresAt, updatedAt: now.toISOString() });
    if (!rotated) throw notFound();
    return { subscriptionId, signingSecret, previousSecretExpiresAt: previousExpiresAt ?? null };
  }

  async getSubscription(workspaceId: string, subscriptionId: string): Promise<SubscriptionView> {
    if (!isIdentifier('sub', subscriptionId)) throw notFound();
    const record = await this.dependencies.store.get(workspaceId, subscriptionId);
    if (!record) throw notFound();
    return subscriptionView(record);
  }

  async listSubscriptions(workspaceId: string, query: SubscriptionListQuery): Promise<{ data: SubscriptionView[]; totalItems: number }> {
    const records = await this.dependencies.store.listWorkspace(workspaceId);
    return planSubscriptionList(records.map(subscriptionView), query);
  }

  async updateSubscription(workspaceId: string, subscriptionId: string, changes: SubscriptionChanges): Promise<SubscriptionView> {
    if (!isIdentifier('sub', subscriptionId)) throw notFound();
    if (changes.endpointUrl !== undefined) checkEndpointUrl(changes.endpointUrl, this.dependencies.endpointUrlPolicy);
    const updated = await this.dependencies.store.update(workspaceId, subscriptionId, changes, this.now().toISOString());
    if (!updated) throw notFound();
    // Resumed (or set active again): what fell due while paused is queued now. The store marked the
    // resume in the same write, so a crash before this line leaves it to the held-delivery sweeper.
    if (changes.status === 'active') {
      await callDownstream('release of held deliveries', () => this.dependencies.releaseHeldDeliveries(subscriptionId));
    }
    return subscriptionView(updated);
  }

  async deleteSubscription(workspaceId: string, subscriptionId: string): Promise<void> {
    if (!isIdentifier('sub', subscriptionId)) throw notFound();
    if (!(await this.dependencies.store.delete(workspaceId, subscriptionId))) throw notFound();
    // The subscription is gone whatever happens next, so the answer is 204. A release that fails
    // leaves the slot taken only until a create finds the quota full and frees it (subscription-quota.ts).
    try {
      await this.dependencies.quota.release(workspaceId, subscriptionId);
    } catch (error) {
      logger.warn('quota slot of a deleted subscription not released; the next create that needs it frees it', { workspaceId, subscriptionId, error });
    }
  }

  /**
   * The held-delivery sweeper (a schedule row): releases the held attempts of every subscription
   * resumed more than `graceMs` ago and still active, then clears its resume mark. The grace lets an
   * attempt that a consumer held while the resume was being written (it read the subscription as
   * paused) land first, and outlasts the index's eventual consistency.
   */
  async releaseHeldOfResumed(graceMs: number): Promise<{ subscriptions: number; released: number }> {
    const { store, releaseHeldDeliveries } = this.dependencies;
    const cutoff = new Date(this.now().getTime() - graceMs).toISOString();
    let released = 0;
    const resumed = await store.resumedBefore(cutoff);
    for (const { workspaceId, subscriptionId, resumedAt } of resumed) {
      const current = await store.get(workspaceId, subscriptionId);
      if (current?.status === 'active') released += await releaseHeldDeliveries(subscriptionId);
      if (current) await store.clearResumeMark(subscriptionId, resumedAt);
    }
    return { subscriptions: resumed.length, released };
  }

  /** The signing secret in clear, for the delivery consumer; never returned by the API after create. */
  async signingSecretOf(workspaceId: string, subscriptionId: string): Promise<string> {
    if (!isIdentifier('sub', subscriptionId)) throw notFound();
    const encrypted = await this.dependencies.store.encryptedSecretOf(workspaceId, subscriptionId);
    if (!encrypted) throw notFound();
    return this.dependencies.cipher().decrypt(encrypted, { workspaceId, subscriptionId });
  }
}
