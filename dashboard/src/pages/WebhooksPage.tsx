import { useState } from 'preact/hooks';
import { api, EVENT_TYPES, type WebhookEndpoint, type WebhookSettings } from '../api.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Time } from '../components/Time.tsx';
import { useLoad } from '../components/useLoad.ts';
import { format } from '../format.ts';
import { navigate, type Route, withQuery } from '../router.ts';

const WEBHOOK_EVENTS = ['decision.created', 'review.created', 'review.resolved'] as const;
const OUTCOMES = ['APPROVE', 'DECLINE', 'REVIEW'] as const;

/**
 * Webhook endpoints: add one (its secret is shown once), see why one was disabled, and per endpoint
 * its recent deliveries with test, redeliver, rotate, disable and delete. The open endpoint is in
 * the URL.
 */
export function WebhooksPage({ route }: { route: Route }) {
  const open = route.query.get('webhook') ?? undefined;
  const list = useLoad((client) => client.webhooks(), []);
  const [secret, setSecret] = useState<{ webhookId: string; secret: string }>();
  return (
    <div class={open ? 'split' : ''}>
      <section aria-label="Endpoints">
        <ErrorMessage error={list.error} action="Loading the webhook endpoints" />
        {secret ? (
          <div class="notice" role="status">
            Signing secret of {secret.webhookId}, shown only now: <code>{secret.secret}</code>
          </div>
        ) : null}
        {list.data && list.data.items.length === 0 ? <p class="empty">No webhook endpoints yet</p> : null}
        {list.data && list.data.items.length > 0 ? (
          <table>
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Events</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((w) => (
                <tr key={w.webhookId} class={w.webhookId === open ? 'selected' : ''}>
                  <td class="clip">
                    <a
                      href={withQuery(route, { webhook: w.webhookId })}
                      onClick={(e) => {
                        e.preventDefault();
                        navigate(withQuery(route, { webhook: w.webhookId }));
                      }}
                    >
                      {w.url}
                    </a>
                  </td>
                  <td>{filtersOf(w)}</td>
                  <td>{w.status === 'enabled' ? 'Enabled' : `Disabled: ${w.disabled?.reason ?? ''}`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
        <CreateForm
          onCreated={(created) => {
            setSecret(created);
            list.reload();
          }}
        />
      </section>
      {open ? (
        <EndpointDetail
          key={open}
          webhookId={open}
          onChanged={list.reload}
          onSecret={setSecret}
          onDeleted={() => {
            list.reload();
            navigate(withQuery(route, { webhook: undefined }));
          }}
        />
      ) : null}
    </div>
  );
}

const filtersOf = (w: WebhookEndpoint) =>
  [
    w.events.join(', '),
    w.eventTypes ? `types ${w.eventTypes.join(', ')}` : '',
    w.outcomes ? `outcomes ${w.outcomes.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('; ');

function CreateForm({ onCreated }: { onCreated: (created: { webhookId: string; secret: string }) => void }) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(['decision.created']);
  const [eventTypes, setEventTypes] = useState<string[]>([]);
  const [outcomes, setOutcomes] = useState<string[]>([]);
  const [error, setError] = useState<unknown>();
  const toggle = (list: string[], value: string, set: (next: string[]) => void) =>
    set(list.includes(value) ? list.filter((v) => v !== value) : [...list, value]);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    try {
      const body = {
        url,
        events,
        ...(eventTypes.length > 0 ? { eventTypes } : {}),
        ...(outcomes.length > 0 ? { outcomes } : {}),
      } as WebhookSettings;
      const created = await api.createWebhook(body);
      setUrl('');
      onCreated({ webhookId: created.webhook.webhookId, secret: created.secret });
    } catch (failure) {
      setError(failure);
    }
  };
  const boxes = (
    name: string,
    values: readonly string[],
    chosen: string[],
    set: (next: string[]) => void,
  ) => (
    <fieldset class="checks">
      <legend>{name}</legend>
      {values.map((value) => (
        <label key={value}>
          <input
            type="checkbox"
            checked={chosen.includes(value)}
            onChange={() => toggle(chosen, value, set)}
          />
          {value}
        </label>
      ))}
    </fieldset>
  );
  return (
    <form class="detail" onSubmit={submit} aria-label="Add an endpoint">
      <h3>Add an endpoint</h3>
      <label>
        URL
        <input type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
      </label>
      {boxes('Events', WEBHOOK_EVENTS, events, setEvents)}
      {boxes('Only these event types (none: all)', EVENT_TYPES, eventTypes, setEventTypes)}
      {boxes('decision.created only for these outcomes (none: all)', OUTCOMES, outcomes, setOutcomes)}
      <ErrorMessage error={error} action="Adding the endpoint" />
      <button type="submit" disabled={!url || events.length === 0}>
        Add endpoint
      </button>
    </form>
  );
}

function EndpointDetail(props: {
  webhookId: string;
  onChanged: () => void;
  onSecret: (secret: { webhookId: string; secret: string }) => void;
  onDeleted: () => void;
}) {
  const { webhookId } = props;
  const deliveries = useLoad((client) => client.webhookDeliveries(webhookId), [webhookId]);
  const [error, setError] = useState<unknown>();
  const [note, setNote] = useState('');
  const act = async (what: string, action: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await action();
      setNote(what);
      deliveries.reload();
      props.onChanged();
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <section class="detail" aria-label="Endpoint">
      <div class="actions wrap">
        <button type="button" onClick={() => act('Test event queued', () => api.testWebhook(webhookId))}>
          Send test event
        </button>
        <button
          type="button"
          class="secondary"
          onClick={() =>
            act('Secret rotated: both secrets sign for 24 h', async () =>
              props.onSecret({ webhookId, secret: (await api.rotateWebhookSecret(webhookId)).secret }),
            )
          }
        >
          Rotate secret
        </button>
        <button
          type="button"
          class="secondary"
          onClick={() => act('Disabled', () => api.updateWebhook(webhookId, { enabled: false }))}
        >
          Disable
        </button>
        <button
          type="button"
          class="secondary"
          onClick={() => act('Enabled', () => api.updateWebhook(webhookId, { enabled: true }))}
        >
          Enable
        </button>
        <button
          type="button"
          class="secondary"
          onClick={async () => {
            await act('Deleted', () => api.deleteWebhook(webhookId));
            props.onDeleted();
          }}
        >
          Delete
        </button>
        <button type="button" class="secondary" onClick={deliveries.reload}>
          Refresh
        </button>
      </div>
      {note ? <p role="status">{note}</p> : null}
      <ErrorMessage error={error ?? deliveries.error} action="The webhook action" />
      {deliveries.data && deliveries.data.items.length === 0 ? <p class="empty">No deliveries yet</p> : null}
      {deliveries.data && deliveries.data.items.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last answer</th>
              <th scope="col" />
            </tr>
          </thead>
          <tbody>
            {deliveries.data.items.map((d) => (
              <tr key={d.deliveryId}>
                <td>
                  {d.type}{' '}
                  <span class="muted">
                    <Time value={d.createdAt} />
                  </span>
                </td>
                <td>{d.status}</td>
                <td class="num">{format.number(d.attempts)}</td>
                <td class="clip">
                  {d.lastAttempt
                    ? `${d.lastAttempt.status ?? ''} ${d.lastAttempt.error ?? ''} (${format.number(d.lastAttempt.latencyMs)} ms)`
                    : ''}
                </td>
                <td>
                  <button
                    type="button"
                    class="secondary"
                    onClick={() =>
                      act('Redelivery queued', () => api.redeliverWebhook(webhookId, d.deliveryId))
                    }
                  >
                    Redeliver
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
