import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { hostname } from 'node:os';
import type { EventType } from '../events/event-envelope.ts';
import { deliveryRequestHeaders } from '../webhooks/delivery-headers.ts';
import { envelopeBody } from '../webhooks/event-payloads.ts';
import { signWebhook } from '../webhooks/webhook-signature.ts';
import type { PaperflowApiClient } from './api-client.ts';
import { ApiError } from './cli-errors.ts';
import type { ListedItem } from '../client/api-answers.ts';
import type { Subscription } from './event-commands.ts';

// `paperflow listen`: follows new events through GET /events and forwards each, signed with a local
// secret exactly as a delivery is (the same body bytes, headers and both signature schemes), to a
// receiver on the developer's machine, which the service itself could not reach.
//
// GET /events lists only the event types some subscription of the workspace names (paused ones
// count). So when the workspace's subscriptions do not cover the types followed, listen creates one
// for the missing types, pauses it at once (nothing is delivered from it; its endpoint is a name
// under .invalid, which never resolves) and deletes it when it stops (Ctrl-C, SIGTERM, SIGHUP). One
// left behind by a process killed outright (SIGKILL, a crash) is named "paperflow listen <host> <pid>":
// the next listen on that host whose pid no longer runs deletes it before it counts what is covered,
// so killed runs do not pile up against the quota of 25 subscriptions.

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
  /** Whether a process of this host still runs (a listen's subscription names its pid). */
  processRuns?: (pid: number) => boolean;
}

const listenNamePrefix = 'paperflow listen ';

/** The name of the subscription a listen process creates: its host and pid say whose it is. */
export function listenSubscriptionName(host: string, pid: number): string {
  return `${listenNamePrefix}${host} ${pid}`.slice(0, 128);
}

function processRunsHere(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

type ListedEvent = ListedItem<'/events'>;

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

  /**
   * Makes the followed types listed; returns the paused subscription it created for them, if any,
   * and the ones an earlier, killed listen of this host left behind, which it deleted first.
   */
  async ensureListed(): Promise<{ created?: Subscription; removedLeftovers: Subscription[] }> {
    const subscriptions = await allPages((page) => this.client.call((api) => api.GET('/event-subscriptions', { params: { query: { page, size: listPageSize } } })));
    const leftovers = subscriptions.filter((subscription) => this.isLeftBehind(subscription));
    for (const leftover of leftovers) await this.deleteSubscription(leftover.id);
    const covered = new Set(subscriptions.filter((subscription) => !leftovers.includes(subscription)).flatMap((subscription) => subscription.eventTypes));
    const missing = this.options.eventTypes.filter((type) => !covered.has(type));
    if (missing.length === 0) return { removedLeftovers: leftovers };
    const created = await this.client.call((api) =>
      api.POST('/event-subscriptions', { body: { name: listenSubscriptionName(hostname(), process.pid), endpointUrl: listenPlaceholderEndpoint, eventTypes: missing } }),
    );
    this.createdSubscription = created;
    const paused = await this.client.call((api) => api.PATCH('/event-subscriptions/{subscriptionId}', { params: { path: { subscriptionId: created.id } }, body: { status: 'paused' } }));
    return { created: paused, removedLeftovers: leftovers };
  }

  /** A listen subscription of this host whose process no longer runs (it was killed before deleting it). */
  private isLeftBehind(subscription: Subscription): boolean {
    if (subscription.endpointUrl !== listenPlaceholderEndpoint || !subscription.name.startsWith(listenNamePrefix)) return false;
    const [host, pid, ...rest] = subscription.name.slice(listenNamePrefix.length).split(' ');
    if (rest.length > 0 || host !== hostname() || !/^[1-9]\d*$/.test(pid ?? '')) return false;
    return Number(pid) !== process.pid && !(this.options.processRuns ?? processRunsHere)(Number(pid));
  }

  private async deleteSubscription(id: string): Promise<void> {
    try {
      await this.client.call((api) => api.DELETE('/event-subscriptions/{subscriptionId}', { params: { path: { subscriptionId: id } } }));
    } catch (error) {
      // Another listen cleaning up at the same time got there first.
      if (!(error instanceof ApiError && error.status === 404)) throw error;
    }
  }

  /** Deletes the subscription `ensureListed` created; its id when there was one. */
  async removeCreatedSubscription(): Promise<string | undefined> {
    const created = this.createdSubscription;
    if (!created) return undefined;
    await this.deleteSubscription(created.id);
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
    const envelope = await this.client.call((api) => api.GET('/events/{eventId}', { params: { path: { eventId: event.eventId } } }));
    const body = envelopeBody(envelope);
    const timestamp = Math.floor((this.options.now ?? Date.now)() / 1000);
    const signature = signWebhook({ secret: this.options.secret, eventId: envelope.eventId, body, timestamp });
    // A local delivery id, recognisably not one of the service's dlv_ ids.
    const deliveryId = `dlv_listen_${randomBytes(8).toString('hex')}`;
    const headers = deliveryRequestHeaders({ eventId: envelope.eventId, eventType: envelope.eventType, deliveryId, attempt: 1 }, signature);
    const summary = { eventId: event.eventId, eventType: event.eventType, occurredAt: event.occurredAt };
    try {
      return { ...summary, outcome: { status: await postExactly(this.options.forwardTo, headers, body, forwardTimeoutMs) } };
    } catch (error) {
      return { ...summary, outcome: { error: (error as NodeJS.ErrnoException).name === 'AbortError' ? 'timeout' : ((error as NodeJS.ErrnoException).code ?? (error as Error).message) } };
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
    const query = { from: new Date(this.windowStart()).toISOString(), sort: 'asc', ...(types.length === 1 ? { eventType: types[0] } : {}), size: listPageSize } as const;
    const events = await allPages((page) => this.client.call((api) => api.GET('/events', { params: { query: { ...query, page } } })));
    return events.filter((event) => types.includes(event.eventType));
  }
}

/** Every item of a list, page after page (`listPage` asks for one). */
async function allPages<Item>(listPage: (page: number) => Promise<{ data: Item[]; pageInfo: { totalPages: number } }>): Promise<Item[]> {
  const items: Item[] = [];
  for (let page = 0; ; page++) {
    const answer = await listPage(page);
    items.push(...answer.data);
    if (page + 1 >= answer.pageInfo.totalPages) return items;
  }
}

/**
 * POSTs `body` with exactly `headers`, and what HTTP/1.1 itself needs (Host, Content-Length,
 * Connection), as the service's deliveries arrive; fetch would add headers of its own (Accept,
 * Accept-Language, Sec-Fetch-Mode…) that a receiver never sees from the service. Redirects are not
 * followed, as real deliveries do not follow them. Resolves with the receiver's status.
 */
function postExactly(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<number> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = send(target, { method: 'POST', headers, agent: false, signal: AbortSignal.timeout(timeoutMs) }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
