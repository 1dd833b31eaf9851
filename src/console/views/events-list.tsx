import { useState } from 'preact/hooks';
import { answerOf, type ConsoleApi } from '../api-client.ts';
import type { EventType, Subscription } from '../api-types.ts';
import { ErrorNotice, formatTime, useResource } from '../resource-loading.tsx';
import { hrefOf } from '../routing.ts';
import { TimeRangeInputs, type TimeRange } from './time-range-inputs.tsx';

/** The spec's event types, in the order it lists them. */
export const eventTypes: EventType[] = [
  'document-insights.extraction.completed',
  'document-insights.extraction.failed',
  'document-insights.extraction.rejected',
  'workflow.run.completed',
  'workflow.run.failed',
];

/**
 * The workspace's subscriptions, for their names (a workspace has at most 25, one page). A key
 * without subscriptions:read gets none: the views then show subscription ids.
 */
export function useSubscriptions(api: ConsoleApi): Subscription[] {
  const subscriptions = useResource(() => answerOf(api.GET('/event-subscriptions', { params: { query: { size: 100 } } })).catch(() => undefined), []);
  return subscriptions.value?.data ?? [];
}

export function EventsList({ api }: { api: ConsoleApi }) {
  const [eventType, setEventType] = useState<EventType | ''>('');
  const [subscriptionId, setSubscriptionId] = useState('');
  const [range, setRange] = useState<TimeRange>({});
  const subscriptions = useSubscriptions(api);
  const query = { size: 100, ...(eventType ? { eventType } : {}), ...(subscriptionId ? { subscriptionId } : {}), ...range };
  const events = useResource(() => answerOf(api.GET('/events', { params: { query } })), [JSON.stringify(query)]);
  return (
    <section aria-labelledby="events-heading">
      <h1 id="events-heading">Events</h1>
      <form class="filters" onSubmit={(event) => event.preventDefault()} aria-label="Filter events">
        <label>
          Type
          <select name="eventType" value={eventType} onChange={(event) => setEventType(event.currentTarget.value as EventType | '')}>
            <option value="">Any</option>
            {eventTypes.map((type) => (
              <option value={type}>{type}</option>
            ))}
          </select>
        </label>
        <label>
          Subscription
          <select name="subscriptionId" value={subscriptionId} onChange={(event) => setSubscriptionId(event.currentTarget.value)}>
            <option value="">Any</option>
            {subscriptions.map((subscription) => (
              <option value={subscription.id}>{subscription.name}</option>
            ))}
          </select>
        </label>
        <TimeRangeInputs noun="Occurred" range={range} onChange={setRange} />
      </form>
      <ErrorNotice error={events.error} />
      {events.value ? (
        <div class="table-scroll">
          <table class="list">
            <caption>
              {events.value.pageInfo.totalItems} events{subscriptionId ? ' (deliveries to the chosen subscription)' : ''}
            </caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Type</th>
                <th scope="col">Deliveries</th>
                <th scope="col">Occurred</th>
              </tr>
            </thead>
            <tbody>
              {events.value.data.map((event) => (
                <tr key={event.eventId} data-event-id={event.eventId}>
                  <td>
                    <a href={hrefOf({ view: 'event', id: event.eventId })}>{event.eventId}</a>
                  </td>
                  <td>{event.eventType}</td>
                  <td class="delivery-summary">
                    {event.deliverySummary.total} total · {event.deliverySummary.succeeded} succeeded · {event.deliverySummary.failed} failed ·{' '}
                    {event.deliverySummary.pending} pending
                  </td>
                  <td>{formatTime(event.occurredAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
