import { useState } from 'preact/hooks';
import type { ConsoleEventType } from '../api.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { EventTypeSelect } from '../components/EventTypeSelect.tsx';
import { Explanation } from '../components/Explanation.tsx';
import { Time } from '../components/Time.tsx';
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
  const found = useLoad(
    (client) => (id ? client.decision(type, id) : Promise.resolve(undefined)),
    [type, id],
  );
  return (
    <div>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          navigate(withQuery(route, { type: draft.type, id: draft.id.trim() }));
        }}
      >
        <EventTypeSelect
          value={draft.type}
          onChange={(value) => setDraft({ ...draft, type: value as ConsoleEventType })}
        />
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
            {found.data.eventType} <bdi class="provider-id">{found.data.providerId}</bdi>{' '}
            <span class="muted">
              decided <Time value={found.data.createdAt} />
            </span>
          </h2>
          <Explanation explanation={found.data} />
        </>
      ) : null}
    </div>
  );
}
