import { useState } from 'preact/hooks';
import { api, EVENT_TYPES, type ListEntry, type ListEntryRequest, type ListRules } from '../api.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Time } from '../components/Time.tsx';
import { useLoad } from '../components/useLoad.ts';
import { LoadMore, usePagedLoad } from '../components/usePagedLoad.tsx';
import { navigate, type Route, withQuery } from '../router.ts';

const LISTS = ['block', 'watch', 'allow'] as const;
const KINDS = ['card', 'device', 'email', 'phone', 'address', 'customer'] as const;
const SOURCES = ['manual', 'rule', 'feedback'] as const;
type Kind = (typeof KINDS)[number];

const RULES: { rule: keyof ListRules; label: string; effect: string }[] = [
  {
    rule: 'lostFraudChargeback',
    label: 'Lost fraud chargebacks',
    effect: 'block the card for orders; watch the order’s devices, addresses and phones',
  },
  {
    rule: 'abusiveDisposition',
    label: 'Abusive returns',
    effect:
      'an empty box, a counterfeit or a suspected-abuse item watches the return’s e-mail, card, device and address',
  },
  {
    rule: 'abuseReview',
    label: 'Reviews resolved as abuse',
    effect: 'watch the event’s e-mail, card, device and address',
  },
];

/**
 * Block, watch and allow lists: the entries (filters in the URL), adding one with the inputs its
 * identity kind takes, removing one after a confirmation, and the feedback rules' switches.
 */
export function ListsPage({ route }: { route: Route }) {
  const filter = {
    list: route.query.get('list') ?? '',
    kind: route.query.get('kind') ?? '',
    source: route.query.get('source') ?? '',
  };
  const query = Object.fromEntries(Object.entries(filter).filter(([, v]) => v)) as Parameters<
    typeof api.listEntries
  >[0];
  const list = usePagedLoad(
    (client, cursor) => client.listEntries({ ...query, ...(cursor ? { cursor } : {}) }),
    [filter.list, filter.kind, filter.source],
  );
  const { items } = list;
  const choose = (name: string, values: readonly string[]) => (
    <label>
      {name}
      <select
        value={filter[name.toLowerCase() as keyof typeof filter]}
        onChange={(e) => navigate(withQuery(route, { [name.toLowerCase()]: e.currentTarget.value }))}
      >
        <option value="">All</option>
        {values.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <div>
      <div class="split">
        <AddForm onAdded={list.reload} />
        <RulesForm />
      </div>
      <section aria-label="Entries">
        <h2>Entries</h2>
        <form class="filters" onSubmit={(e) => e.preventDefault()}>
          {choose('List', LISTS)}
          {choose('Kind', KINDS)}
          {choose('Source', SOURCES)}
        </form>
        <ErrorMessage error={list.error} action="Loading the lists" />
        {list.data && items.length === 0 ? <p class="empty">No entries</p> : null}
        {items.length > 0 ? (
          <table aria-label="List entries">
            <thead>
              <tr>
                <th scope="col">Identity</th>
                <th scope="col">List</th>
                <th scope="col">Reason</th>
                <th scope="col">By</th>
                <th scope="col">Acts</th>
                <th scope="col" />
              </tr>
            </thead>
            <tbody>
              {items.map((entry) => (
                <EntryRow key={entry.entryId} entry={entry} onRemoved={list.reload} />
              ))}
            </tbody>
          </table>
        ) : null}
        <LoadMore paged={list} />
      </section>
    </div>
  );
}

const STATUS_WORDS: Record<ListEntry['status'], string> = {
  active: 'in force',
  expired: 'expired',
  displaced: 'displaced (its identity holds the most entries that can act)',
};

function EntryRow({ entry, onRemoved }: { entry: ListEntry; onRemoved: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<unknown>();
  const remove = async () => {
    setError(undefined);
    try {
      await api.removeListEntry(entry.entryId);
      onRemoved();
    } catch (failure) {
      setError(failure);
    }
  };
  const scope = entry.eventTypes ? ` (${entry.eventTypes.join(', ')})` : '';
  return (
    <tr>
      <td>
        {entry.identity} <span class="muted">{entry.kind}</span>
      </td>
      <td>
        {entry.list}
        {scope}
      </td>
      <td class="clip" title={entry.reason}>
        {entry.reason}
      </td>
      <td>
        {entry.createdBy} <span class="muted">{entry.source}</span>
      </td>
      <td>
        {STATUS_WORDS[entry.status]}
        <span class="muted">
          {' '}
          from <Time value={entry.effectiveAt} />
          {entry.expiresAt ? (
            <>
              {' '}
              until <Time value={entry.expiresAt} />
            </>
          ) : null}
        </span>
      </td>
      <td>
        {confirming ? (
          <span class="actions">
            <button type="button" onClick={remove} aria-label={`Confirm removing ${entry.identity}`}>
              Confirm
            </button>
            <button type="button" class="secondary" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </span>
        ) : (
          <button
            type="button"
            class="secondary"
            onClick={() => setConfirming(true)}
            aria-label={`Remove ${entry.identity}`}
          >
            Remove
          </button>
        )}
        <ErrorMessage error={error} action="Removing the entry" />
      </td>
    </tr>
  );
}

/** The value a kind takes, from the form's inputs. */
function identityOf(kind: Kind, inputs: Record<string, string>): ListEntryRequest['identity'] {
  const given = (name: string) => (inputs[name]?.trim() ? { [name]: inputs[name]!.trim() } : {});
  switch (kind) {
    case 'card':
      return {
        kind,
        value: inputs.paymentIdentifier?.trim()
          ? { paymentIdentifier: inputs.paymentIdentifier.trim() }
          : { BIN: inputs.BIN ?? '', last4: inputs.last4 ?? '', ...given('expiry') },
      };
    case 'address':
      return { kind, value: { ...given('line1'), ...given('postalCode'), ...given('country') } };
    default:
      return { kind, value: inputs.value ?? '' };
  }
}

const KIND_INPUTS: Record<Kind, { name: string; label: string }[]> = {
  card: [
    { name: 'BIN', label: 'BIN (first 6-8 digits)' },
    { name: 'last4', label: 'Last 4 digits' },
    { name: 'expiry', label: 'Expiry (MM/YY, as orders send it)' },
    { name: 'paymentIdentifier', label: 'Or: payment identifier' },
  ],
  address: [
    { name: 'line1', label: 'Street (line 1)' },
    { name: 'postalCode', label: 'Postal code' },
    { name: 'country', label: 'Country' },
  ],
  device: [{ name: 'value', label: 'Device identifier' }],
  email: [{ name: 'value', label: 'E-mail' }],
  phone: [{ name: 'value', label: 'Phone' }],
  customer: [{ name: 'value', label: 'Customer id' }],
};

function AddForm({ onAdded }: { onAdded: () => void }) {
  const [list, setList] = useState<(typeof LISTS)[number]>('block');
  const [kind, setKind] = useState<Kind>('email');
  const [inputs, setInputs] = useState<Record<string, string>>({});
  const [reason, setReason] = useState('');
  const [expires, setExpires] = useState('');
  const [eventTypes, setEventTypes] = useState<string[]>([]);
  const [error, setError] = useState<unknown>();
  const [added, setAdded] = useState<ListEntry>();
  const kinds = list === 'allow' ? (['email', 'customer'] as const) : KINDS;
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    try {
      const entry = await api.addListEntry({
        list,
        identity: identityOf(kind, inputs),
        reason,
        ...(expires ? { expiresAt: new Date(expires).toISOString() } : {}),
        ...(eventTypes.length > 0 ? { eventTypes: eventTypes as ListEntryRequest['eventTypes'] } : {}),
      });
      setAdded(entry);
      setInputs({});
      setReason('');
      onAdded();
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <form class="detail list-entry" onSubmit={submit} aria-label="Add an entry">
      <h3>Add an entry</h3>
      <div class="filters">
        <label>
          List
          <select
            value={list}
            onChange={(e) => {
              const next = e.currentTarget.value as (typeof LISTS)[number];
              setList(next);
              if (next === 'allow' && kind !== 'email' && kind !== 'customer') setKind('email');
            }}
          >
            {LISTS.map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </select>
        </label>
        <label>
          Kind
          <select value={kind} onChange={(e) => setKind(e.currentTarget.value as Kind)}>
            {kinds.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </label>
      </div>
      {KIND_INPUTS[kind].map(({ name, label }) => (
        <label key={`${kind}-${name}`}>
          {label}
          <input
            value={inputs[name] ?? ''}
            onInput={(e) => setInputs({ ...inputs, [name]: e.currentTarget.value })}
          />
        </label>
      ))}
      <label>
        Reason
        <textarea
          required
          maxLength={1024}
          value={reason}
          onInput={(e) => setReason(e.currentTarget.value)}
        />
      </label>
      <label>
        Expires (optional)
        <input type="datetime-local" value={expires} onInput={(e) => setExpires(e.currentTarget.value)} />
      </label>
      <fieldset class="checks">
        <legend>Only these event types (none: all)</legend>
        {EVENT_TYPES.map((type) => (
          <label key={type}>
            <input
              type="checkbox"
              checked={eventTypes.includes(type)}
              onChange={() =>
                setEventTypes(
                  eventTypes.includes(type) ? eventTypes.filter((t) => t !== type) : [...eventTypes, type],
                )
              }
            />
            {type}
          </label>
        ))}
      </fieldset>
      <ErrorMessage error={error} action="Adding the entry" />
      {added ? (
        <p role="status">
          Added {added.identity} to the {added.list} list ({STATUS_WORDS[added.status]})
        </p>
      ) : null}
      <button type="submit" disabled={!reason.trim()}>
        Add to list
      </button>
    </form>
  );
}

function RulesForm() {
  const loaded = useLoad((client) => client.listRules(), []);
  const [rules, setRules] = useState<ListRules>();
  const [note, setNote] = useState('');
  const [error, setError] = useState<unknown>();
  const shown = rules ?? loaded.data;
  const save = async (event: Event) => {
    event.preventDefault();
    if (!shown) return;
    setError(undefined);
    try {
      setRules(await api.saveListRules(shown));
      setNote('Feedback rules saved');
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <form class="detail" onSubmit={save} aria-label="Feedback rules">
      <h3>Feedback rules</h3>
      <ErrorMessage error={loaded.error ?? error} action="The feedback rules" />
      {shown
        ? RULES.map(({ rule, label, effect }) => (
            <label key={rule} class="rule-switch">
              <input
                type="checkbox"
                checked={shown[rule]}
                onChange={() => setRules({ ...shown, [rule]: !shown[rule] })}
              />
              {label}: <span class="muted">{effect}</span>
            </label>
          ))
        : null}
      {note ? <p role="status">{note}</p> : null}
      <button type="submit" disabled={!shown}>
        Save rules
      </button>
    </form>
  );
}
