import { isIdentifier } from '../infrastructure/identifiers.ts';
import { NotFoundError } from '../platform/errors.ts';
import type { DeliverySubscription, SubscriptionLookup } from './delivery-attempts.ts';
import type { SubscriptionStore } from './subscription-store.ts';

/**
 * The delivery engine's `SubscriptionLookup` over the subscription store: what delivery needs of a
 * subscription, and its signing secret in clear. `secretOf` decrypts (SubscriptionService.signingSecretOf),
 * so only a function granted `signingKey: 'decrypt'` may call `signingSecret`; `find` needs the table only
 * (the resend route uses just that). Undefined means the subscription is gone.
 */
export class StoredSubscriptionLookup implements SubscriptionLookup {
  constructor(
    private readonly store: Pick<SubscriptionStore, 'findAnyWorkspace'>,
    private readonly secretOf: (workspaceId: string, subscriptionId: string) => Promise<string>,
  ) {}

  async find(subscriptionId: string): Promise<DeliverySubscription | undefined> {
    if (!isIdentifier('sub', subscriptionId)) return undefined;
    const record = await this.store.findAnyWorkspace(subscriptionId);
    if (!record) return undefined;
    const { id, workspaceId, status, endpointUrl, eventTypes, filters } = record;
    return { id, workspaceId, status, endpointUrl, eventTypes: [...eventTypes], filters };
  }

  async signingSecret(subscriptionId: string): Promise<string | undefined> {
    const subscription = await this.find(subscriptionId);
    if (!subscription) return undefined;
    try {
      return await this.secretOf(subscription.workspaceId, subscription.id);
    } catch (error) {
      // Deleted between the two reads.
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }
}
