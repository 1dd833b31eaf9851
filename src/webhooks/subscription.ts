import type { EventType } from '../events/event-envelope.ts';

export const subscriptionStatuses = ['active', 'paused'] as const;
export type SubscriptionStatus = (typeof subscriptionStatuses)[number];

/** At most this many subscriptions per workspace (spec, Limits: a quota exists; DESIGN.md: 25). */
export const subscriptionQuota = 25;

export interface SubscriptionFilters {
  /** Workflow events of this workflow only; extraction events are selected by type alone. */
  workflowId?: string;
}

/** What the API shows of a subscription: never the signing secret. */
export interface SubscriptionView {
  id: string;
  name: string;
  endpointUrl: string;
  eventTypes: EventType[];
  filters: SubscriptionFilters;
  status: SubscriptionStatus;
  createdAt: string;
  updatedAt: string;
}

/** The create response, the one place the secret is shown. */
export interface CreatedSubscription extends SubscriptionView {
  signingSecret: string;
}

/** A rotation's answer, the one place the new secret is shown; `null`: the old secret was removed at once. */
export interface RotatedSigningSecret {
  subscriptionId: string;
  signingSecret: string;
  previousSecretExpiresAt: string | null;
}

export interface SubscriptionRecord extends SubscriptionView {
  workspaceId: string;
}

/** The fields a PATCH may change; at least one is present. */
export type SubscriptionChanges = Partial<Pick<SubscriptionView, 'name' | 'endpointUrl' | 'eventTypes' | 'filters' | 'status'>>;

export function subscriptionView(record: SubscriptionRecord): SubscriptionView {
  const { id, name, endpointUrl, eventTypes, filters, status, createdAt, updatedAt } = record;
  return { id, name, endpointUrl, eventTypes, filters, status, createdAt, updatedAt };
}
