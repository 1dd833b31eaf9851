import type { ApiClient, Page } from '../api-client.ts';
import type { ListedEvent } from '../api-types.ts';
import { ErrorNotice, formatTime, useResource } from '../resource-loading.tsx';
import { hrefOf } from '../routing.ts';

export function EventsList({ api }: { api: ApiClient }) {
  const events = useResource(() => api.get<Page<ListedEvent>>('/events?size=100'), []);
  return (
    <section aria-labelledby="events-heading">
      <h1 id="events-heading">Events</h1>
      <ErrorNotice error={events.error} />
      {events.value ? (
        <div class="table-scroll">
          <table class="list">
            <caption>{events.value.pageInfo.totalItems} events</caption>
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
