import { useState } from 'preact/hooks';
import { answerOf, type ConsoleApi } from '../api-client.ts';
import { eventTypes, type EventType, type Subscription } from '../api-types.ts';
import { ErrorNotice, formatTime, useResource } from '../resource-loading.tsx';
import { hrefOf } from '../routing.ts';
import { ChoiceFilter, choicesOf, TimeRangeInputs, type TimeRange } from './list-filters.tsx';

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
        <ChoiceFilter label="Type" name="eventType" value={eventType} choices={choicesOf(eventTypes)} onChange={setEventType} />
        <ChoiceFilter
          label="Subscription"
          name="subscriptionId"
          value={subscriptionId}
          choices={subscriptions.map((subscription) => ({ value: subscription.id, label: subscription.name }))}
          onChange={setSubscriptionId}
        />
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
