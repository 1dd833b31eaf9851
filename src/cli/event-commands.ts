import type { Command } from 'commander';
import { eventTypes, type EventType } from '../events/event-envelope.ts';
import { oneOf, parseDateTime, parseEventTypes, parseOverlapHours, parsePageNumber, parsePageSize } from './argument-parsing.ts';
import { UsageError } from './cli-errors.ts';
import type { CommandContext } from './command-context.ts';
import type { ListedItem, QueryOf, ResponseBody } from '../client/api-answers.ts';
import { regularNoun, type TableColumn } from './table-format.ts';

// `paperflow events …` and `paperflow subscriptions …`: the event history, deliveries and resends,
// and the webhook subscriptions that decide what is delivered (and what GET /events lists).

type ListedEvent = ListedItem<'/events'>;
type Delivery = ListedItem<'/events/{eventId}/deliveries'>;
type DeliveryAttempt = ResponseBody<'/events/{eventId}/deliveries/{deliveryId}', 'get'>['attempts'][number];
/** A subscription as the API answers it; `signingSecret` only in the answer to its create. */
export type Subscription = ListedItem<'/event-subscriptions'> & { signingSecret?: string };

const eventColumns: TableColumn<ListedEvent>[] = [
  { header: 'EVENT ID', value: (event) => event.eventId },
  { header: 'TYPE', value: (event) => event.eventType },
  { header: 'OCCURRED', value: (event) => event.occurredAt },
  { header: 'DELIVERIES', value: (event) => event.deliverySummary.total, alignRight: true },
  { header: 'OK', value: (event) => event.deliverySummary.succeeded, alignRight: true },
  { header: 'FAILED', value: (event) => event.deliverySummary.failed, alignRight: true },
  { header: 'PENDING', value: (event) => event.deliverySummary.pending, alignRight: true },
];

const deliveryColumns: TableColumn<Delivery>[] = [
  { header: 'DELIVERY ID', value: (delivery) => delivery.id },
  { header: 'SUBSCRIPTION', value: (delivery) => delivery.subscriptionId },
  { header: 'TRIGGER', value: (delivery) => delivery.trigger },
  { header: 'STATUS', value: (delivery) => delivery.status },
  { header: 'ATTEMPTS', value: (delivery) => `${delivery.attemptCount}/${delivery.maxAttempts}`, alignRight: true },
  { header: 'LAST HTTP', value: (delivery) => delivery.lastResponseStatus, alignRight: true },
  { header: 'NEXT ATTEMPT', value: (delivery) => delivery.nextAttemptAt },
];

const attemptColumns: TableColumn<DeliveryAttempt>[] = [
  { header: '#', value: (attempt) => attempt.number, alignRight: true },
  { header: 'STARTED', value: (attempt) => attempt.startedAt },
  { header: 'OUTCOME', value: (attempt) => attempt.outcome },
  { header: 'HTTP', value: (attempt) => attempt.responseStatus, alignRight: true },
  { header: 'MS', value: (attempt) => attempt.durationMs, alignRight: true },
  { header: 'ERROR', value: (attempt) => (attempt.error ? `${attempt.error.kind}: ${attempt.error.message}` : '') },
];

export const subscriptionColumns: TableColumn<Subscription>[] = [
  { header: 'ID', value: (subscription) => subscription.id },
  { header: 'NAME', value: (subscription) => subscription.name },
  { header: 'STATUS', value: (subscription) => subscription.status },
  { header: 'ENDPOINT', value: (subscription) => subscription.endpointUrl },
  { header: 'EVENT TYPES', value: (subscription) => subscription.eventTypes.join(',') },
  { header: 'WORKFLOW', value: (subscription) => subscription.filters.workflowId },
];

const pageOptions = (command: Command) =>
  command.option('--page <n>', 'page number, from 0', parsePageNumber).option('--size <n>', 'items per page, 1 to 100', parsePageSize).option('--json', 'print the API answer as JSON');

export function addEventCommands(program: Command, context: CommandContext): void {
  const events = program.command('events').description('The event history: events, their deliveries, resends.');

  pageOptions(
    events
      .command('list')
      .description('List events of the types the workspace subscribes to (paused subscriptions count), newest first.')
      .option('--type <eventType>', `only this type: ${eventTypes.join(', ')}`, oneOf(eventTypes))
      .option('--subscription <subscriptionId>', 'only events delivered to this subscription (the counts are then its deliveries)')
      .option('--from <datetime>', 'occurred at or after (ISO 8601)', parseDateTime)
      .option('--to <datetime>', 'occurred at or before (ISO 8601)', parseDateTime)
      .option('--sort <order>', 'asc or desc', oneOf(['asc', 'desc'])),
  ).action(async (options: Omit<QueryOf<'/events'>, 'eventType' | 'subscriptionId'> & { type?: EventType; subscription?: string; json?: boolean }) => {
    const { from, to, sort, page, size } = options;
    const query = { eventType: options.type, subscriptionId: options.subscription, from, to, sort, page, size };
    const body = await (await context.client()).call((api) => api.GET('/events', { params: { query } }));
    if (options.json) context.json(body);
    else context.list(body, eventColumns, regularNoun('event'));
  });

  events
    .command('get')
    .description('Print an event exactly as its webhooks carry it (JSON).')
    .argument('<eventId>')
    .action(async (eventId: string) => {
      context.json(await (await context.client()).call((api) => api.GET('/events/{eventId}', { params: { path: { eventId } } })));
    });

  pageOptions(
    events
      .command('deliveries')
      .description('List the deliveries of an event, or with a delivery id show that one with its attempts.')
      .argument('<eventId>')
      .argument('[deliveryId]')
      .option('--subscription <subscriptionId>', 'only the deliveries to this subscription'),
  ).action(async (eventId: string, deliveryId: string | undefined, options: { subscription?: string; page?: number; size?: number; json?: boolean }) => {
    const client = await context.client();
    if (deliveryId !== undefined) {
      const body = await client.call((api) => api.GET('/events/{eventId}/deliveries/{deliveryId}', { params: { path: { eventId, deliveryId } } }));
      if (options.json) return context.json(body);
      context.table(deliveryColumns, [body]);
      context.out();
      if (body.attemptsOmitted) context.out(context.paint('dim', 'Older attempts are omitted; the most recent 100 are shown.'));
      if (body.attempts.length > 0) context.table(attemptColumns, body.attempts);
      else context.out('No attempts yet.');
      return;
    }
    const query = { subscriptionId: options.subscription, page: options.page, size: options.size };
    const body = await client.call((api) => api.GET('/events/{eventId}/deliveries', { params: { path: { eventId }, query } }));
    if (options.json) context.json(body);
    else context.list(body, deliveryColumns, { one: 'delivery', many: 'deliveries' });
  });

  events
    .command('resend')
    .description('Send an event again to the subscription of one of its deliveries (one attempt; the subscription must be active).')
    .argument('<eventId>')
    .argument('<deliveryId>', 'a delivery of the event (events deliveries <eventId> lists them)')
    .option('--json', 'print the new delivery as JSON')
    .action(async (eventId: string, deliveryId: string, options: { json?: boolean }) => {
      const body = await (await context.client()).call((api) => api.POST('/events/{eventId}/deliveries/{deliveryId}/resend', { params: { path: { eventId, deliveryId } } }));
      if (options.json) context.json(body);
      else context.out(`Resend queued as delivery ${body.id} (${body.status}).`);
    });
}

export function addSubscriptionCommands(program: Command, context: CommandContext): void {
  const subscriptions = program.command('subscriptions').description('Webhook subscriptions: where events are delivered.');
  const printOne = (subscription: Subscription, json: boolean | undefined) => (json ? context.json(subscription) : context.table(subscriptionColumns, [subscription]));

  subscriptions
    .command('create')
    .description('Create a subscription; its signing secret is printed now and never again.')
    .requiredOption('--name <name>', 'a name, at most 128 characters')
    .requiredOption('--url <endpointUrl>', 'the HTTPS URL that receives the deliveries')
    .requiredOption('--events <types>', `event types, comma-separated or repeated: ${eventTypes.join(', ')}`, parseEventTypes)
    .option('--workflow <workflowId>', 'deliver workflow events of this workflow only')
    .option('--json', 'print the subscription (with the secret) as JSON')
    .action(async (options: { name: string; url: string; events: EventType[]; workflow?: string; json?: boolean }) => {
      const body = await (await context.client()).create((api, header) =>
        api.POST('/event-subscriptions', {
          params: { header },
          body: { name: options.name, endpointUrl: options.url, eventTypes: options.events, ...(options.workflow ? { filters: { workflowId: options.workflow } } : {}) },
        }),
      );
      if (options.json) return context.json(body);
      context.table(subscriptionColumns, [body]);
      context.out();
      context.out(`Signing secret: ${context.paint('bold', body.signingSecret ?? '')}`);
      context.err('Store the signing secret now: it is shown only this once.');
    });

  pageOptions(
    subscriptions
      .command('list')
      .description('List subscriptions, newest first.')
      .option('--name <text>', 'names containing this (any case)')
      .option('--status <status>', 'active or paused', oneOf(['active', 'paused']))
      .option('--type <eventType>', 'subscriptions receiving this event type', oneOf(eventTypes))
      .option('--from <datetime>', 'created at or after (ISO 8601)', parseDateTime)
      .option('--to <datetime>', 'created at or before (ISO 8601)', parseDateTime)
      .option('--sort-by <field>', 'createdAt or updatedAt', oneOf(['createdAt', 'updatedAt']))
      .option('--sort <order>', 'asc or desc', oneOf(['asc', 'desc'])),
  ).action(async (options: Omit<QueryOf<'/event-subscriptions'>, 'eventType'> & { type?: EventType; json?: boolean }) => {
    const { name, status, from, to, sortBy, sort, page, size } = options;
    const query = { name, status, eventType: options.type, from, to, sortBy, sort, page, size };
    const body = await (await context.client()).call((api) => api.GET('/event-subscriptions', { params: { query } }));
    if (options.json) context.json(body);
    else context.list(body, subscriptionColumns, regularNoun('subscription'));
  });

  subscriptions
    .command('get')
    .description('Show a subscription (never its secret).')
    .argument('<subscriptionId>')
    .option('--json', 'print the subscription as JSON')
    .action(async (subscriptionId: string, options: { json?: boolean }) => {
      printOne(await (await context.client()).call((api) => api.GET('/event-subscriptions/{subscriptionId}', { params: { path: { subscriptionId } } })), options.json);
    });

  subscriptions
    .command('update')
    .description('Change what is given; --status paused suspends deliveries, active resumes them.')
    .argument('<subscriptionId>')
    .option('--name <name>', 'a new name')
    .option('--url <endpointUrl>', 'a new HTTPS endpoint')
    .option('--events <types>', 'the event types, replacing the list', parseEventTypes)
    .option('--workflow <workflowId>', 'deliver workflow events of this workflow only')
    .option('--no-workflow', 'remove the workflow filter')
    .option('--status <status>', 'active or paused', oneOf(['active', 'paused']))
    .option('--json', 'print the subscription as JSON')
    .action(async (subscriptionId: string, options: { name?: string; url?: string; events?: string[]; workflow?: string | false; status?: string; json?: boolean }) => {
      const filters = options.workflow === false ? {} : options.workflow !== undefined ? { workflowId: options.workflow } : undefined;
      const changes = { name: options.name, endpointUrl: options.url, eventTypes: options.events, filters, status: options.status };
      const patch = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
      if (Object.keys(patch).length === 0) {
        throw new UsageError('Nothing to change: give --name, --url, --events, --workflow, --no-workflow or --status.');
      }
      printOne(await (await context.client()).call((api) => api.PATCH('/event-subscriptions/{subscriptionId}', { params: { path: { subscriptionId } }, body: patch })), options.json);
    });

  subscriptions
    .command('delete')
    .description('Delete a subscription; nothing more is delivered to it.')
    .argument('<subscriptionId>')
    .action(async (subscriptionId: string) => {
      await (await context.client()).call((api) => api.DELETE('/event-subscriptions/{subscriptionId}', { params: { path: { subscriptionId } } }));
      context.out(`Deleted ${subscriptionId}.`);
    });

  subscriptions
    .command('rotate-secret')
    .description('Replace the signing secret; the new one is printed now and never again. The old one keeps signing beside it for the overlap.')
    .argument('<subscriptionId>')
    .option('--overlap-hours <n>', 'how long the old secret still signs, 0 to 168 hours (default 24; 0 removes it at once)', parseOverlapHours)
    .option('--json', 'print the answer (with the secret) as JSON')
    .action(async (subscriptionId: string, options: { overlapHours?: number; json?: boolean }) => {
      const body = await (await context.client()).call((api) =>
        api.POST('/event-subscriptions/{subscriptionId}/rotate-secret', {
          params: { path: { subscriptionId } },
          body: options.overlapHours === undefined ? {} : { overlapHours: options.overlapHours },
        }),
      );
      if (options.json) return context.json(body);
      context.out(`Signing secret: ${context.paint('bold', body.signingSecret)}`);
      context.out(body.previousSecretExpiresAt ? `The old secret signs too until ${body.previousSecretExpiresAt}.` : 'The old secret was removed: it signs nothing more.');
      context.err('Store the signing secret now: it is shown only this once.');
    });

  subscriptions
    .command('recover')
    .description('Send again every delivery of the subscription that ended FAILED since a time (each once; the subscription must be active).')
    .argument('<subscriptionId>')
    .requiredOption('--since <datetime>', 'deliveries that ended FAILED at or after this time (ISO 8601)', parseDateTime)
    .option('--json', 'print the answer of each request as JSON')
    .action(async (subscriptionId: string, options: { since: string; json?: boolean }) => {
      const client = await context.client();
      // The API recovers at most 100 per request and says when more wait: asked again until none do.
      let total = 0;
      for (;;) {
        const body = await client.call((api) => api.POST('/event-subscriptions/{subscriptionId}/recover', { params: { path: { subscriptionId } }, body: { since: options.since } }));
        if (options.json) context.json(body);
        total += body.recovered;
        // Nothing sent although more wait: those are another request's, still being written; asking
        // again at once would only find them again.
        if (!body.hasMore || body.recovered === 0) break;
      }
      if (!options.json) context.out(total === 0 ? `Nothing to recover since ${options.since}.` : `${total} failed ${total === 1 ? 'delivery' : 'deliveries'} sent again.`);
    });
}
