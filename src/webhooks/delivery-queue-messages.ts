import * as z from 'zod/mini';
import { eventTypes } from '../events/event-envelope.ts';
import { notifyEventListeners, type RecordedEventListener } from '../events/event-listeners.ts';
import type { DeliveryAttempts, SubscriptionLookup } from './delivery-attempts.ts';
import type { EventPayloads } from './event-payloads.ts';

// The two kinds of message on the webhook delivery queue (docs/webhooks.md, Delivery protocol): the
// events outbox's hand-off (src/events/event-outbox.ts, EventRecordedMessage) and the engine's own
// attempt messages (delivery-attempts.ts, AttemptMessage).

const identifier = (prefix: string) => z.string().check(z.regex(new RegExp(`^${prefix}_[0-9A-Za-z]+$`)));

export const deliveryQueueMessageSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('event-recorded'), workspaceId: z.string().check(z.minLength(1)), eventId: identifier('evt'), eventType: z.enum(eventTypes) }),
  z.object({
    kind: z.literal('attempt'),
    deliveryId: identifier('dlv'),
    eventId: identifier('evt'),
    attempt: z.number().check(z.int(), z.positive()),
    notBefore: z.optional(z.iso.datetime()),
  }),
]);

export type DeliveryQueueMessage = z.infer<typeof deliveryQueueMessageSchema>;

/** What became of one message, for the consumer's log line. */
export type DeliveryQueueOutcome =
  | { kind: 'event-recorded'; deliveries: number; listeners: number }
  | { kind: 'attempt'; action: string };

/** A message body that is not JSON or not one of the two kinds: its receipt fails, and after
 * `maxReceiveCount` receives SQS moves it to the dead-letter queue. */
export class MalformedDeliveryMessage extends Error {
  constructor(readonly problems: string) {
    super(`Not a webhook delivery queue message: ${problems}`);
    this.name = 'MalformedDeliveryMessage';
  }
}

export function parseDeliveryQueueMessage(body: string): DeliveryQueueMessage {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new MalformedDeliveryMessage('the body is not JSON');
  }
  const parsed = deliveryQueueMessageSchema.safeParse(json);
  if (!parsed.success) throw new MalformedDeliveryMessage(parsed.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`).join('; '));
  return parsed.data;
}

/**
 * One message of the delivery queue: a recorded event is fanned out to the workspace's active,
 * matching subscriptions (one Query of at most 25); an attempt message is one attempt of a delivery.
 * Both are idempotent under SQS's at-least-once delivery (see DeliveryAttempts).
 */
export class DeliveryQueueMessages {
  constructor(
    private readonly dependencies: {
      attempts: DeliveryAttempts;
      subscriptions: SubscriptionLookup;
      events: EventPayloads;
      /** The manifest's domain listeners (src/events/event-listeners.ts), run on the same hand-off. */
      listeners?: readonly RecordedEventListener[];
    },
  ) {}

  async handle(message: DeliveryQueueMessage): Promise<DeliveryQueueOutcome> {
    const { attempts, subscriptions, events } = this.dependencies;
    if (message.kind === 'attempt') {
      const { kind: _kind, ...attempt } = message;
      return { kind: 'attempt', action: (await attempts.processAttemptMessage(attempt)).action };
    }
    const [event, candidates] = await Promise.all([events.load(message.workspaceId, message.eventId), subscriptions.ofWorkspace(message.workspaceId)]);
    // The hand-off follows the event's write, so a missing event is a read that came too early (the
    // message comes back) or a message that names no event of that workspace (it ends in the DLQ).
    if (!event) throw new Error(`Event ${message.eventId} of workspace ${message.workspaceId} is not recorded.`);
    // Both are idempotent per event: a failure of either brings the message back for both.
    const [deliveries, listeners] = await Promise.allSettled([
      // Attempt 1 of each new delivery goes out from here: one queue message less per delivery.
      attempts.createAutomaticDeliveries(event, candidates, { sendFirstAttemptsNow: true }),
      notifyEventListeners(this.dependencies.listeners ?? [], event),
    ]);
    if (deliveries.status === 'rejected') throw deliveries.reason;
    if (listeners.status === 'rejected') throw listeners.reason;
    return { kind: 'event-recorded', deliveries: deliveries.value.length, listeners: listeners.value };
  }
}
