/**
 * The per-workspace limit on subscriptions (`subscriptionQuota`, 25): a slot per subscription, taken
 * before its record is written and given back when it is deleted (or its write failed). Of two creates
 * racing for the last slot exactly one wins.
 */
export interface SubscriptionQuota {
  /** Takes the slot of `subscriptionId`; 409 CONFLICT (ConflictError) when the workspace is at its limit. */
  reserve(workspaceId: string, subscriptionId: string): Promise<void>;
  /** Gives the slot of `subscriptionId` back; idempotent. */
  release(workspaceId: string, subscriptionId: string): Promise<void>;
}
