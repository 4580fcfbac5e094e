import { useState } from 'preact/hooks';
import { api, type ConsoleEventType, EVENT_TYPES } from '../api.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Explanation } from '../components/Explanation.tsx';
import { useLoad } from '../components/useLoad.ts';
import { navigate, type Route, withQuery } from '../router.ts';

const ID_NAMES: Record<ConsoleEventType, string> = {
  order: 'providerOrderId',
  return: 'providerReturnId',
  signup: 'customerId',
  login: 'serviceLoginId',
  account: 'serviceAccountEventId',
};

/** Look a decision up by the merchant's id; the search is in the URL, so it can be shared. */
export function DecisionsPage({ route }: { route: Route }) {
  const type = (route.query.get('type') ?? 'order') as ConsoleEventType;
  const id = route.query.get('id') ?? '';
  const [draft, setDraft] = useState({ type, id });
  const found = useLoad(() => (id ? api.decision(type, id) : Promise.resolve(undefined)), [type, id]);
  return (
    <div>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          navigate(withQuery(route, { type: draft.type, id: draft.id.trim() }));
        }}
      >
        <label>
          Event type
          <select
            value={draft.type}
            onChange={(e) => setDraft({ ...draft, type: e.currentTarget.value as ConsoleEventType })}
          >
            {EVENT_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label>
          {ID_NAMES[draft.type]}
          <input
            required
            value={draft.id}
            onInput={(e) => setDraft({ ...draft, id: e.currentTarget.value })}
          />
        </label>
        <button type="submit">Search</button>
      </form>
      <ErrorMessage error={found.error} action="Looking the decision up" />
      {!id ? (
        <p class="empty">Enter the id your system gave the event to see why it was decided so.</p>
      ) : null}
      {found.data ? (
        <>
          <h2>
            {found.data.eventType} <span class="provider-id">{found.data.providerId}</span>{' '}
            <span class="muted">decided {new Date(found.data.createdAt).toLocaleString()}</span>
          </h2>
          <Explanation explanation={found.data} />
        </>
      ) : null}
    </div>
  );
}
