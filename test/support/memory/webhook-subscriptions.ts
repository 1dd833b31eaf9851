import { ConflictError } from '../../../src/platform/errors.ts';
import type { EncryptedSigningSecret } from '../../../src/webhooks/subscription-secrets.ts';
import type { SubscriptionQuota } from '../../../src/webhooks/subscription-quota.ts';
import type { ResumedSubscription, SubscriptionForDelivery, SubscriptionStore } from '../../../src/webhooks/subscription-store.ts';
import { subscriptionQuota, type SubscriptionChanges, type SubscriptionRecord } from '../../../src/webhooks/subscription.ts';

// In-test implementations of the subscriptions module's ports (subscription-store.ts,
// subscription-quota.ts), with the same rules as the DynamoDB adapters in src/webhooks/aws/: another
// workspace's subscription answers as a missing one, a resume carries a mark until the sweeper clears
// it, a rotation keeps at most one previous secret.

const copy = <T>(value: T): T => structuredClone(value);

interface StoredSubscription {
  record: SubscriptionRecord;
  secretCiphertext: EncryptedSigningSecret;
  previousSecret?: { ciphertext: EncryptedSigningSecret; expiresAt: string };
  resumedAt?: string;
}

export class InMemorySubscriptionStore implements SubscriptionStore {
  readonly subscriptions = new Map<string, StoredSubscription>();
  /** Set to make the next create throw, as a write that failed after the quota slot was taken. */
  failNextCreate = false;

  async create(record: SubscriptionRecord, secretCiphertext: EncryptedSigningSecret): Promise<void> {
    if (this.failNextCreate) {
      this.failNextCreate = false;
      throw new Error('The subscription could not be written.');
    }
    if (this.subscriptions.has(record.id)) throw new Error(`Subscription ${record.id} exists already.`);
    this.subscriptions.set(record.id, { record: copy(record), secretCiphertext: copy(secretCiphertext) });
  }

  async get(workspaceId: string, subscriptionId: string): Promise<SubscriptionRecord | undefined> {
    const stored = this.of(workspaceId, subscriptionId);
    return stored && copy(stored.record);
  }

  async encryptedSecretOf(workspaceId: string, subscriptionId: string): Promise<EncryptedSigningSecret | undefined> {
    const stored = this.of(workspaceId, subscriptionId);
    return stored && copy(stored.secretCiphertext);
  }

  async getForDelivery(workspaceId: string, subscriptionId: string): Promise<SubscriptionForDelivery | undefined> {
    const stored = this.of(workspaceId, subscriptionId);
    if (!stored) return undefined;
    return copy({ record: stored.record, secretCiphertext: stored.secretCiphertext, ...(stored.previousSecret ? { previousSecret: stored.previousSecret } : {}) });
  }

  async rotateSecret(
    workspaceId: string,
    subscriptionId: string,
    secretCiphertext: EncryptedSigningSecret,
    options: { previousExpiresAt?: string; updatedAt: string },
  ): Promise<SubscriptionRecord | undefined> {
    const stored = this.of(workspaceId, subscriptionId);
    if (!stored) return undefined;
    if (options.previousExpiresAt !== undefined) stored.previousSecret = { ciphertext: stored.secretCiphertext, expiresAt: options.previousExpiresAt };
    else delete stored.previousSecret;
    stored.secretCiphertext = copy(secretCiphertext);
    stored.record.updatedAt = options.updatedAt;
    return copy(stored.record);
  }

  async destroyPreviousSecret(subscriptionId: string, expiresAt: string): Promise<boolean> {
    const stored = this.subscriptions.get(subscriptionId);
    if (stored?.previousSecret?.expiresAt !== expiresAt) return false;
    delete stored.previousSecret;
    return true;
  }

  async listWorkspace(workspaceId: string): Promise<SubscriptionRecord[]> {
    return [...this.subscriptions.values()]
      .filter(({ record }) => record.workspaceId === workspaceId)
      .map(({ record }) => copy(record))
      .sort((a, b) => `${a.createdAt}#${a.id}`.localeCompare(`${b.createdAt}#${b.id}`));
  }

  async update(workspaceId: string, subscriptionId: string, changes: SubscriptionChanges, updatedAt: string): Promise<SubscriptionRecord | undefined> {
    const stored = this.of(workspaceId, subscriptionId);
    if (!stored) return undefined;
    Object.assign(stored.record, copy(changes), { updatedAt });
    if (changes.status === 'active') stored.resumedAt = updatedAt;
    if (changes.status === 'paused') delete stored.resumedAt;
    return copy(stored.record);
  }

  async resumedBefore(cutoff: string): Promise<ResumedSubscription[]> {
    return [...this.subscriptions.values()]
      .filter((stored): stored is StoredSubscription & { resumedAt: string } => stored.resumedAt !== undefined && `${stored.resumedAt}#${stored.record.id}` < cutoff)
      .sort((a, b) => `${a.resumedAt}#${a.record.id}`.localeCompare(`${b.resumedAt}#${b.record.id}`))
      .map(({ record, resumedAt }) => ({ workspaceId: record.workspaceId, subscriptionId: record.id, resumedAt }));
  }

  async clearResumeMark(subscriptionId: string, resumedAt: string): Promise<void> {
    const stored = this.subscriptions.get(subscriptionId);
    if (stored?.resumedAt === resumedAt) delete stored.resumedAt;
  }

  async delete(workspaceId: string, subscriptionId: string): Promise<boolean> {
    if (!this.of(workspaceId, subscriptionId)) return false;
    return this.subscriptions.delete(subscriptionId);
  }

  /** The stored subscription when it is the workspace's own. */
  private of(workspaceId: string, subscriptionId: string): StoredSubscription | undefined {
    const stored = this.subscriptions.get(subscriptionId);
    return stored?.record.workspaceId === workspaceId ? stored : undefined;
  }
}

/** A slot per subscription id, per workspace; `limit` of them at most. */
export class InMemorySubscriptionQuota implements SubscriptionQuota {
  readonly slots = new Map<string, Set<string>>();
  /** Set to make the next release throw, as a release that failed after its subscription's delete. */
  failNextRelease = false;

  constructor(private readonly limit = subscriptionQuota) {}

  async reserve(workspaceId: string, subscriptionId: string): Promise<void> {
    const taken = this.slotsOf(workspaceId);
    if (!taken.has(subscriptionId) && taken.size >= this.limit) {
      throw new ConflictError(`A workspace has at most ${this.limit} event subscriptions; delete one to create another.`);
    }
    taken.add(subscriptionId);
  }

  async release(workspaceId: string, subscriptionId: string): Promise<void> {
    if (this.failNextRelease) {
      this.failNextRelease = false;
      throw new Error('The quota slot could not be released.');
    }
    this.slotsOf(workspaceId).delete(subscriptionId);
  }

  slotsOf(workspaceId: string): Set<string> {
    if (!this.slots.has(workspaceId)) this.slots.set(workspaceId, new Set());
    return this.slots.get(workspaceId)!;
  }
}
