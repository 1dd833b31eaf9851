import { useState } from 'preact/hooks';
import { answerOf, type ApiError, type ConsoleApi } from '../api-client.ts';
import type { DeliveryAttempt, Subscription } from '../api-types.ts';
import { ErrorNotice, StatusBadge, formatDuration, formatTime, useResource } from '../resource-loading.tsx';
import { hrefOf } from '../routing.ts';
import { subjectOf } from './event-subject.ts';
import { useSubscriptions } from './events-list.tsx';

/** A subscription's name, or its id when it is gone (deleted) or the key may not read subscriptions. */
function subscriptionLabel(subscriptions: readonly Subscription[], subscriptionId: string) {
  const subscription = subscriptions.find((candidate) => candidate.id === subscriptionId);
  return subscription ? (
    <>
      {subscription.name} <span class="hint">({subscriptionId})</span>
    </>
  ) : (
    subscriptionId
  );
}

export function EventDetail({ api, id }: { api: ConsoleApi; id: string }) {
  const path = { eventId: id };
  const event = useResource(() => answerOf(api.GET('/events/{eventId}', { params: { path } })), [id]);
  const deliveries = useResource(() => answerOf(api.GET('/events/{eventId}/deliveries', { params: { path, query: { size: 100 } } })), [id]);
  const subscriptions = useSubscriptions(api);
  const [openDeliveryId, setOpenDeliveryId] = useState<string | undefined>(undefined);
  const [resendError, setResendError] = useState<ApiError | undefined>(undefined);
  const subject = event.value && subjectOf(event.value);

  const resend = (deliveryId: string) => {
    setResendError(undefined);
    answerOf(api.POST('/events/{eventId}/deliveries/{deliveryId}/resend', { params: { path: { eventId: id, deliveryId } } })).then((created) => {
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
      {event.value ? (
        <p class="summary event-subject">
          Occurred {formatTime(event.value.occurredAt)}
          {subject ? (
            <>
              {' '}
              · about {subject.view === 'extraction' ? 'extraction' : 'run'} <a href={hrefOf(subject)}>{subject.id}</a>
            </>
          ) : null}
        </p>
      ) : null}
      <ErrorNotice error={event.error ?? deliveries.error} />
      <ErrorNotice error={resendError} />
      {deliveries.value ? (
        <div class="table-scroll">
          <table class="list">
            <caption>{deliveries.value.pageInfo.totalItems} deliveries</caption>
            <thead>
              <tr>
                <th scope="col">Delivery</th>
                <th scope="col">Subscription</th>
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
                  <td class="subscription">{subscriptionLabel(subscriptions, delivery.subscriptionId)}</td>
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
      {openDeliveryId ? <DeliveryAttempts api={api} eventId={id} deliveryId={openDeliveryId} subscriptions={subscriptions} /> : null}
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

function DeliveryAttempts({ api, eventId, deliveryId, subscriptions }: { api: ConsoleApi; eventId: string; deliveryId: string; subscriptions: readonly Subscription[] }) {
  const detail = useResource(() => answerOf(api.GET('/events/{eventId}/deliveries/{deliveryId}', { params: { path: { eventId, deliveryId } } })), [eventId, deliveryId], {
    refreshMs: 1000,
    keepRefreshing: (loaded) => loaded.status === 'PENDING',
  });
  if (!detail.value) return <ErrorNotice error={detail.error} />;
  return (
    <section class="attempts" aria-labelledby="attempts-heading">
      <h2 id="attempts-heading">Attempts of {detail.value.id}</h2>
      <p class="hint">To {subscriptionLabel(subscriptions, detail.value.subscriptionId)}</p>
      {detail.value.attemptsOmitted ? <p class="hint">Older attempts are not shown.</p> : null}
      <ol>
        {detail.value.attempts.map((attempt) => (
          <li key={attempt.number} data-attempt={attempt.number}>
            <p>
              #{attempt.number} {formatTime(attempt.startedAt)}: <StatusBadge status={attempt.outcome} /> {attempt.responseStatus ?? ''}{' '}
              {formatDuration(attempt.durationMs ?? undefined)}
              {attempt.error ? ` · ${attempt.error.kind}: ${attempt.error.message}` : ''}
            </p>
            <AttemptExchange attempt={attempt} />
          </li>
        ))}
      </ol>
    </section>
  );
}

/** What was sent (the headers, signatures redacted by the API) and what came back (the first 4 KB the API keeps). */
function AttemptExchange({ attempt }: { attempt: DeliveryAttempt }) {
  const headers = Object.entries(attempt.requestHeaders);
  return (
    <div class="attempt-exchange">
      <div>
        <h3>Request headers</h3>
        {headers.length > 0 ? (
          <dl class="headers" aria-label={`Request headers of attempt ${attempt.number}`}>
            {headers.map(([name, value]) => (
              <div key={name}>
                <dt>{name}</dt>
                <dd>{value}</dd>
              </div>
            ))}
          </dl>
        ) : (
          <p class="hint">Not sent yet.</p>
        )}
      </div>
      <div>
        <h3>
          Response body <span class="hint">(first 4 KB)</span>
        </h3>
        {attempt.responseBody === null ? (
          <p class="hint">No response.</p>
        ) : (
          <pre class="json response-body" tabIndex={0} aria-label={`Response body of attempt ${attempt.number}`}>
            {attempt.responseBody === '' ? '(empty)' : attempt.responseBody}
          </pre>
        )}
      </div>
    </div>
  );
}
