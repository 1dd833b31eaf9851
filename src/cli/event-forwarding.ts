import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { EventEnvelope, EventType } from '../events/event-envelope.ts';
import { deliveryRequestHeaders } from '../webhooks/delivery-headers.ts';
import { envelopeBody } from '../webhooks/event-payloads.ts';
import { signWebhook } from '../webhooks/webhook-signature.ts';
import type { PaperflowApiClient } from './api-client.ts';
import type { ListAnswer } from './command-context.ts';
import type { Subscription } from './event-commands.ts';

// `paperflow listen`: follows new events through GET /events and forwards each, signed with a local
// secret exactly as a delivery is (the same body bytes, headers and both signature schemes), to a
// receiver on the developer's machine, which the service itself could not reach.
//
// GET /events lists only the event types some subscription of the workspace names (paused ones
// count). So when the workspace's subscriptions do not cover the types followed, listen creates one
// for the missing types, pauses it at once (nothing is delivered from it; its endpoint is a name
// under .invalid, which never resolves) and deletes it when it stops. One left behind by a killed
// process is named "paperflow listen …"; `paperflow subscriptions delete` removes it.

/** Events found by a poll are those that occurred after this much before the newest one seen. */
const lookbackMs = 5 * 60_000;
const forwardTimeoutMs = 10_000;
const listPageSize = 100;
export const listenPlaceholderEndpoint = 'https://paperflow-listen.invalid/';

export interface ForwardedEvent {
  eventId: string;
  eventType: string;
  occurredAt: string;
  /** The receiver's HTTP status, or why there was none. */
  outcome: { status: number } | { error: string };
}

export interface EventForwarderOptions {
  forwardTo: string;
  eventTypes: readonly EventType[];
  secret: string;
  now?: () => number;
}

interface ListedEvent {
  eventId: string;
  eventType: EventType;
  occurredAt: string;
}

export class EventForwarder {
  private readonly seen = new Map<string, number>();
  private readonly startedAt: number;
  private createdSubscription: Subscription | undefined;

  constructor(
    private readonly client: PaperflowApiClient,
    private readonly options: EventForwarderOptions,
  ) {
    this.startedAt = (options.now ?? Date.now)();
  }

  /** Makes the followed types listed; returns the paused subscription it created for them, if any. */
  async ensureListed(): Promise<Subscription | undefined> {
    const subscriptions = await this.allPages<Subscription>('/event-subscriptions', {});
    const covered = new Set(subscriptions.flatMap((subscription) => subscription.eventTypes));
    const missing = this.options.eventTypes.filter((type) => !covered.has(type));
    if (missing.length === 0) return undefined;
    const name = `paperflow listen ${hostname()} ${process.pid}`.slice(0, 128);
    const { body: created } = await this.client.request<Subscription>({
      method: 'POST',
      path: '/event-subscriptions',
      json: { name, endpointUrl: listenPlaceholderEndpoint, eventTypes: missing },
    });
    this.createdSubscription = created;
    const { body: paused } = await this.client.request<Subscription>({ method: 'PATCH', path: `/event-subscriptions/${created.id}`, json: { status: 'paused' } });
    return paused;
  }

  /** Deletes the subscription `ensureListed` created; its id when there was one. */
  async removeCreatedSubscription(): Promise<string | undefined> {
    const created = this.createdSubscription;
    if (!created) return undefined;
    await this.client.request({ method: 'DELETE', path: `/event-subscriptions/${created.id}` });
    this.createdSubscription = undefined;
    return created.id;
  }

  /** Marks what is already listed as seen: only events that appear from now on are forwarded. */
  async skipExisting(): Promise<void> {
    for (const event of await this.listedEvents()) this.remember(event);
  }

  /** One poll: every new event, forwarded in the order it occurred. */
  async forwardNew(report: (forwarded: ForwardedEvent) => void): Promise<void> {
    for (const event of await this.listedEvents()) {
      if (this.seen.has(event.eventId)) continue;
      this.remember(event);
      report(await this.forward(event));
    }
    this.forgetOutsideWindow();
  }

  private async forward(event: ListedEvent): Promise<ForwardedEvent> {
    const { body: envelope } = await this.client.request<EventEnvelope>({ path: `/events/${encodeURIComponent(event.eventId)}` });
    const body = envelopeBody(envelope);
    const timestamp = Math.floor((this.options.now ?? Date.now)() / 1000);
    const signature = signWebhook({ secret: this.options.secret, eventId: envelope.eventId, body, timestamp });
    // A local delivery id, recognisably not one of the service's dlv_ ids.
    const deliveryId = `dlv_listen_${randomBytes(8).toString('hex')}`;
    const headers = deliveryRequestHeaders({ eventId: envelope.eventId, eventType: envelope.eventType, deliveryId, attempt: 1 }, signature);
    const summary = { eventId: event.eventId, eventType: event.eventType, occurredAt: event.occurredAt };
    try {
      // Redirects are not followed, as real deliveries do not follow them.
      const response = await fetch(this.options.forwardTo, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(forwardTimeoutMs) });
      await response.body?.cancel();
      return { ...summary, outcome: { status: response.status } };
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause;
      return { ...summary, outcome: { error: cause?.code ?? (error as Error).message } };
    }
  }

  private remember(event: ListedEvent): void {
    this.seen.set(event.eventId, Date.parse(event.occurredAt));
  }

  private windowStart(): number {
    return Math.max(this.startedAt, ...this.seen.values()) - lookbackMs;
  }

  private forgetOutsideWindow(): void {
    const start = this.windowStart();
    for (const [eventId, occurredAt] of this.seen) if (occurredAt < start) this.seen.delete(eventId);
  }

  private async listedEvents(): Promise<ListedEvent[]> {
    const types = this.options.eventTypes;
    const query = { from: new Date(this.windowStart()).toISOString(), sort: 'asc', ...(types.length === 1 ? { eventType: types[0] } : {}) };
    const events = await this.allPages<ListedEvent>('/events', query);
    return events.filter((event) => types.includes(event.eventType));
  }

  private async allPages<Item>(path: string, query: Record<string, string>): Promise<Item[]> {
    const items: Item[] = [];
    for (let page = 0; ; page++) {
      const { body } = await this.client.request<ListAnswer<Item>>({ path, query: { ...query, page, size: listPageSize } });
      items.push(...body.data);
      if (page + 1 >= body.pageInfo.totalPages) return items;
    }
  }
}
