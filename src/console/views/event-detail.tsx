import { useState } from 'preact/hooks';
import type { ApiClient, ApiError, Page } from '../api-client.ts';
import type { Delivery, DeliveryDetail } from '../api-types.ts';
import { ErrorNotice, StatusBadge, formatDuration, formatTime, useResource } from '../resource-loading.tsx';
import { hrefOf } from '../routing.ts';

export function EventDetail({ api, id }: { api: ApiClient; id: string }) {
  const path = `/events/${encodeURIComponent(id)}`;
  const event = useResource(() => api.get<{ eventType: string; occurredAt: string; data: unknown }>(path), [id]);
  const deliveries = useResource(() => api.get<Page<Delivery>>(`${path}/deliveries?size=100`), [id]);
  const [openDeliveryId, setOpenDeliveryId] = useState<string | undefined>(undefined);
  const [resendError, setResendError] = useState<ApiError | undefined>(undefined);

  const resend = (deliveryId: string) => {
    setResendError(undefined);
    api.post<Delivery>(`${path}/deliveries/${encodeURIComponent(deliveryId)}/resend`).then((created) => {
      setOpenDeliveryId(created.id);
      deliveries.reload();
    }, setResendError);
  };

  return (
    <section aria-labelledby="event-heading">
      <p>
        <a href={hrefOf({ view: 'events' })}>← Events</a>
      </p>
      <h1 id="event-heading">{event.value ? `${event.value.eventType}: ${id}` : id}</h1>
      <ErrorNotice error={event.error ?? deliveries.error} />
      <ErrorNotice error={resendError} />
      {deliveries.value ? (
        <div class="table-scroll">
          <table class="list">
            <caption>{deliveries.value.pageInfo.totalItems} deliveries</caption>
            <thead>
              <tr>
                <th scope="col">Delivery</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last response</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.value.data.map((delivery) => (
                <tr key={delivery.id} data-delivery-id={delivery.id}>
                  <td>
                    {delivery.id} <span class="hint">({delivery.trigger})</span>
                  </td>
                  <td>
                    <StatusBadge status={delivery.status} />
                  </td>
                  <td>
                    {delivery.attemptCount}/{delivery.maxAttempts}
                  </td>
                  <td>{delivery.lastResponseStatus ?? '—'}</td>
                  <td class="actions">
                    <button type="button" aria-expanded={openDeliveryId === delivery.id} onClick={() => setOpenDeliveryId(openDeliveryId === delivery.id ? undefined : delivery.id)}>
                      Attempts
                    </button>
                    <button type="button" onClick={() => resend(delivery.id)}>
                      Resend
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {openDeliveryId ? <DeliveryAttempts api={api} path={`${path}/deliveries/${encodeURIComponent(openDeliveryId)}`} /> : null}
      {event.value ? (
        <>
          <h2>Payload</h2>
          <pre class="json" tabIndex={0} aria-label="Event payload">
            {JSON.stringify(event.value, null, 2)}
          </pre>
        </>
      ) : null}
    </section>
  );
}

function DeliveryAttempts({ api, path }: { api: ApiClient; path: string }) {
  const detail = useResource(() => api.get<DeliveryDetail>(path), [path], { refreshMs: 1000, keepRefreshing: (loaded) => loaded.status === 'PENDING' });
  if (!detail.value) return <ErrorNotice error={detail.error} />;
  return (
    <section class="attempts" aria-labelledby="attempts-heading">
      <h2 id="attempts-heading">Attempts of {detail.value.id}</h2>
      {detail.value.attemptsOmitted ? <p class="hint">Older attempts are not shown.</p> : null}
      <ol>
        {detail.value.attempts.map((attempt) => (
          <li key={attempt.number}>
            #{attempt.number} {formatTime(attempt.startedAt)}: <StatusBadge status={attempt.outcome} /> {attempt.responseStatus ?? ''}{' '}
            {formatDuration(attempt.durationMs ?? undefined)}
            {attempt.error ? ` · ${attempt.error.kind}: ${attempt.error.message}` : ''}
          </li>
        ))}
      </ol>
    </section>
  );
}
