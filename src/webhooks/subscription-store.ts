import type { EncryptedSigningSecret } from './subscription-secrets.ts';
import type { SubscriptionChanges, SubscriptionRecord } from './subscription.ts';

/** A subscription whose resume still awaits the sweeper's release. */
export interface ResumedSubscription {
  workspaceId: string;
  subscriptionId: string;
  resumedAt: string;
}

/** The secret a rotation replaced, kept encrypted until its overlap ends. */
export interface PreviousSigningSecret {
  ciphertext: EncryptedSigningSecret;
  /** ISO 8601: from then on it signs nothing and is removed. */
  expiresAt: string;
}

/** What the delivery consumer reads of a subscription: the record and its stored secrets, in one read. */
export interface SubscriptionForDelivery {
  record: SubscriptionRecord;
  secretCiphertext: EncryptedSigningSecret;
  /** Present from a rotation with an overlap until the old secret is removed (it may have expired already). */
  previousSecret?: PreviousSigningSecret;
}

/**
 * The subscriptions of every workspace, each with its encrypted signing secret (docs/webhooks.md,
 * Records). Every read and write names the workspace: another workspace's subscription answers exactly
 * as a missing one does (undefined, or false).
 */
export interface SubscriptionStore {
  /** Writes a new subscription with its encrypted secret (its id is new: nothing is overwritten). */
  create(record: SubscriptionRecord, secretCiphertext: EncryptedSigningSecret): Promise<void>;
  get(workspaceId: string, subscriptionId: string): Promise<SubscriptionRecord | undefined>;
  /** The stored ciphertext of the signing secret, for the one reader that decrypts it. */
  encryptedSecretOf(workspaceId: string, subscriptionId: string): Promise<EncryptedSigningSecret | undefined>;
  /**
   * The record and the ciphertext of its secret in one read (the delivery consumer needs both for
   * every attempt); undefined when the workspace has no such subscription.
   */
  getForDelivery(workspaceId: string, subscriptionId: string): Promise<SubscriptionForDelivery | undefined>;
  /**
   * Replaces the signing secret in one write. With `previousExpiresAt` the current secret becomes the
   * previous one until then (an older previous one is dropped: at most two sign); without it the
   * current secret is removed at once, and any previous one with it.
   */
  rotateSecret(
    workspaceId: string,
    subscriptionId: string,
    secretCiphertext: EncryptedSigningSecret,
    options: { previousExpiresAt?: string; updatedAt: string },
  ): Promise<SubscriptionRecord | undefined>;
  /**
   * Removes a previous secret whose overlap ended at `expiresAt`, unless a later rotation replaced it
   * meanwhile (that one has its own expiry). False when there was nothing to remove.
   */
  destroyPreviousSecret(subscriptionId: string, expiresAt: string): Promise<boolean>;
  /** Every subscription of the workspace (at most the quota), in creation order. */
  listWorkspace(workspaceId: string): Promise<SubscriptionRecord[]>;
  /**
   * Applies the changes and sets `updatedAt`. Setting `status: active` marks the subscription resumed
   * in the same write (`resumedBefore` finds it until `clearResumeMark`); pausing removes the mark.
   */
  update(workspaceId: string, subscriptionId: string, changes: SubscriptionChanges, updatedAt: string): Promise<SubscriptionRecord | undefined>;
  /** Subscriptions resumed before `cutoff` (ISO 8601) whose mark the sweeper has not cleared, oldest first. */
  resumedBefore(cutoff: string): Promise<ResumedSubscription[]>;
  /** Removes the resume mark, unless a later resume replaced it (that one gets its own sweep). */
  clearResumeMark(subscriptionId: string, resumedAt: string): Promise<void>;
  /** False when the workspace has no such subscription. */
  delete(workspaceId: string, subscriptionId: string): Promise<boolean>;
}
