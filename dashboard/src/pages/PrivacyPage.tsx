import { useEffect, useState } from 'preact/hooks';
import { api, ConsoleApiError, type PrivacyRequest, type PrivacyRequestBody } from '../api.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Time } from '../components/Time.tsx';
import { LoadMore, usePagedLoad } from '../components/usePagedLoad.tsx';
import { format } from '../format.ts';

/** How often the list is read again while a request on it is still pending. */
const POLL_MS = 2_000;

/**
 * Erasing or exporting one customer (docs/privacy.md): a form naming the customer by the
 * identifiers its events sent, a confirmation before an erasure (it cannot be undone), and the
 * merchant's requests with their status, what each found or removed, and an export's link. The API
 * keeps only digests of what a request names, so the list shows kinds and counts, never values.
 */
export function PrivacyPage() {
  const requests = usePagedLoad((client, cursor) => client.privacyRequests(cursor), []);
  const waiting = requests.data?.items.some((request) => request.status === 'pending');
  useEffect(() => {
    if (!waiting) return;
    const timer = setTimeout(requests.reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [requests.data]);
  return (
    <div>
      <p>
        Erase or export everything you hold about one customer, for a request under GDPR (Articles 15 and 17)
        or the CCPA. Name the customer by what your events sent; the identifiers are hashed as events are, and
        only the hashes are kept.
      </p>
      <RequestForm onFiled={requests.reload} />
      <section aria-label="Requests">
        <h2>Requests</h2>
        <ErrorMessage error={requests.error} action="Loading the privacy requests" />
        {requests.data && requests.items.length === 0 ? <p class="empty">No privacy requests yet</p> : null}
        {requests.items.length > 0 ? (
          <table aria-label="Privacy requests">
            <thead>
              <tr>
                <th scope="col">Requested</th>
                <th scope="col">Request</th>
                <th scope="col">Named</th>
                <th scope="col">Status</th>
                <th scope="col">Records</th>
                <th scope="col">Export</th>
              </tr>
            </thead>
            <tbody>
              {requests.items.map((request) => (
                <RequestRow key={request.requestId} request={request} />
              ))}
            </tbody>
          </table>
        ) : null}
        <LoadMore paged={requests} />
      </section>
    </div>
  );
}

const IDENTIFIER_WORDS: Record<keyof PrivacyRequest['identifierKinds'], [string, string]> = {
  customer: ['customer id', 'customer ids'],
  email: ['e-mail', 'e-mails'],
  phone: ['phone', 'phones'],
  card: ['card', 'cards'],
  device: ['device', 'devices'],
  address: ['address', 'addresses'],
};

const RECORD_WORDS: Record<keyof NonNullable<PrivacyRequest['counts']>, [string, string]> = {
  events: ['event', 'events'],
  sideItems: ['item beside an event', 'items beside events'],
  disputes: ['dispute', 'disputes'],
  dispositions: ['disposition', 'dispositions'],
  reviews: ['review', 'reviews'],
  identities: ['identity', 'identities'],
  links: ['identity link', 'identity links'],
  listEntries: ['list entry', 'list entries'],
  webhookItems: ['webhook item', 'webhook items'],
  auditEntries: ['audit entry', 'audit entries'],
  networkContributions: ['network contribution', 'network contributions'],
  lakeRows: ['row in the lake', 'rows in the lake'],
};

/** `2 e-mails, 1 card`: the words for the counts given, the zero ones left out. */
function counted<K extends string>(counts: Partial<Record<K, number>>, words: Record<K, [string, string]>) {
  return (Object.keys(words) as K[])
    .filter((kind) => (counts[kind] ?? 0) > 0)
    .map((kind) => {
      const [one, many] = words[kind];
      return format.count(counts[kind] ?? 0, one, many);
    })
    .join(', ');
}

function RequestRow({ request }: { request: PrivacyRequest }) {
  const records = request.counts ? counted(request.counts, RECORD_WORDS) : '';
  return (
    <tr>
      <td>
        <Time value={request.createdAt} />
      </td>
      <td>
        {request.type === 'erase' ? 'Erase' : 'Export'} <span class="muted">{request.requestId}</span>
      </td>
      <td>{counted(request.identifierKinds, IDENTIFIER_WORDS)}</td>
      <td>
        {request.status === 'pending' ? (
          'pending: waiting for the privacy worker'
        ) : (
          <>
            {request.status}
            {request.finishedAt ? (
              <span class="muted">
                {' '}
                <Time value={request.finishedAt} />
              </span>
            ) : null}
            {request.reason ? <span class="muted">: {request.reason}</span> : null}
          </>
        )}
      </td>
      <td>
        {request.counts ? records || (request.type === 'erase' ? 'nothing to erase' : 'nothing found') : null}
      </td>
      <td>
        {request.exportUrl && request.exportExpiresAt ? (
          <>
            <a href={request.exportUrl} download={`${request.requestId}.json`}>
              Download
            </a>
            <span class="muted">
              {' '}
              until <Time value={request.exportExpiresAt} />
            </span>
          </>
        ) : null}
      </td>
    </tr>
  );
}

/** The identifiers typed one per line, each with its line number (an error names its line). */
const LIST_FIELDS = [
  { field: 'customerIds', label: 'Customer ids', hint: 'customerId or providerCustomerId' },
  { field: 'emails', label: 'E-mails', hint: 'as contact entries send them' },
  { field: 'phones', label: 'Phones', hint: 'as contact entries send them' },
  { field: 'devices', label: 'Devices', hint: 'deviceIdentifier of the fingerprints' },
] as const;
type ListField = (typeof LIST_FIELDS)[number]['field'];

const CARD_INPUTS = [
  { name: 'BIN', label: 'BIN (first 6-8 digits)' },
  { name: 'last4', label: 'Last 4 digits' },
  { name: 'expiry', label: 'Expiry (MM/YY, as orders send it)' },
  { name: 'paymentIdentifier', label: 'Or: payment identifier' },
] as const;
const ADDRESS_INPUTS = [
  { name: 'line1', label: 'Street (line 1)' },
  { name: 'postalCode', label: 'Postal code' },
  { name: 'country', label: 'Country' },
] as const;
type Row = Record<string, string>;

const filled = (line: string | undefined) => Boolean(line?.trim());

/** What was typed, each value with its place on the form (1-based): an error names its place. */
interface Placed<T> {
  value: T;
  at: number;
}

/** The non-empty lines. */
const linesOf = (text: string): Placed<string>[] =>
  text
    .split('\n')
    .map((line, i) => ({ value: line.trim(), at: i + 1 }))
    .filter((entry) => entry.value);

/** The non-empty rows, their empty inputs left out. */
const rowsOf = (rows: readonly Row[]): Placed<Row>[] =>
  rows
    .map((row, i) => ({
      value: Object.fromEntries(
        Object.entries(row)
          .filter(([, v]) => filled(v))
          .map(([k, v]) => [k, v.trim()]),
      ),
      at: i + 1,
    }))
    .filter((entry) => Object.keys(entry.value).length > 0);

interface FormState {
  lists: Record<ListField, string>;
  cards: Row[];
  addresses: Row[];
}
const EMPTY: FormState = {
  lists: { customerIds: '', emails: '', phones: '', devices: '' },
  cards: [{}],
  addresses: [{}],
};

/** The request as the API takes it, and where each item sent came from on the form. */
function requestOf(type: PrivacyRequestBody['type'], state: FormState) {
  const typed: [string, Placed<unknown>[]][] = [
    ...LIST_FIELDS.map(({ field }) => [field, linesOf(state.lists[field])] as [string, Placed<unknown>[]]),
    ['cards', rowsOf(state.cards)],
    ['addresses', rowsOf(state.addresses)],
  ];
  const given = typed.filter(([, entries]) => entries.length > 0);
  const subject = Object.fromEntries(given.map(([field, entries]) => [field, entries.map((e) => e.value)]));
  const places = Object.fromEntries(given.map(([field, entries]) => [field, entries.map((e) => e.at)]));
  // The API checks every value: the form sends what was typed, as typed.
  return { body: { type, subject } as PrivacyRequestBody, places };
}

/**
 * Where on the form the envelope's field is: `subject.emails[1]` is the e-mails' line its item came
 * from, `subject.cards[0].BIN` the first card filled in, `subject` the identifiers as a whole.
 */
interface Refusal {
  /** `type`, `subject`, a list field (`emails`), or `cards`/`addresses` with the place. */
  at: string;
  place?: number;
  message: string;
  requestId?: string;
}

function refusalOf(error: unknown, places: Record<string, number[]>): Refusal | undefined {
  if (!(error instanceof ConsoleApiError) || error.status !== 422 || !error.field) return undefined;
  // Beside its input the message need not repeat the field's path.
  const message = error.message.replace(`${error.field}: `, '');
  const shown = { message, ...(error.requestId ? { requestId: error.requestId } : {}) };
  if (error.field === 'type') return { at: 'type', ...shown };
  if (!error.field.startsWith('subject')) return undefined;
  const match = /^subject\.(\w+)(?:\[(\d+)\])?/.exec(error.field);
  const field = match?.[1];
  // `subject` itself, or a field the form has no input for: the identifiers as a whole.
  if (!match || !field || !(field in places)) return { at: 'subject', ...shown };
  const place = match[2] === undefined ? undefined : places[field]?.[Number(match[2])];
  return { at: field, ...(place ? { place } : {}), ...shown };
}

/** The refusal beside the input it names. */
function FieldError({ id, refusal, prefix }: { id: string; refusal: Refusal; prefix?: string }) {
  return (
    <p class="field-error" id={id} role="alert">
      {prefix}
      {refusal.message}
      {refusal.requestId ? <span class="request-id"> (request id {refusal.requestId})</span> : null}
    </p>
  );
}

function RequestForm({ onFiled }: { onFiled: () => void }) {
  const [type, setType] = useState<PrivacyRequestBody['type']>('export');
  const [state, setState] = useState<FormState>(EMPTY);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<unknown>();
  const [refusal, setRefusal] = useState<Refusal>();
  const [filed, setFiled] = useState<PrivacyRequest>();

  const send = async () => {
    setError(undefined);
    setRefusal(undefined);
    setFiled(undefined);
    setConfirming(false);
    const { body, places } = requestOf(type, state);
    try {
      setFiled(await api.requestPrivacy(body));
      setState(EMPTY);
      onFiled();
    } catch (failure) {
      const named = refusalOf(failure, places);
      if (named) setRefusal(named);
      else setError(failure);
    }
  };
  const submit = (event: Event) => {
    event.preventDefault();
    if (type === 'erase') setConfirming(true);
    else void send();
  };
  const refused = (at: string, place?: number) =>
    refusal?.at === at && (place === undefined || refusal.place === undefined || refusal.place === place)
      ? refusal
      : undefined;
  const invalid = (id: string, shown: Refusal | undefined) =>
    shown ? { 'aria-invalid': true, 'aria-describedby': `${id}-error` } : {};
  const setRow = (field: 'cards' | 'addresses', i: number, name: string, value: string) =>
    setState({
      ...state,
      [field]: state[field].map((row, at) => (at === i ? { ...row, [name]: value } : row)),
    });

  return (
    <form class="detail privacy-request" onSubmit={submit} aria-label="Erase or export a customer">
      <h2>Erase or export a customer</h2>
      <fieldset class="checks" {...invalid('privacy-type', refused('type'))}>
        <legend>What to do</legend>
        <label>
          <input
            type="radio"
            name="privacy-type"
            checked={type === 'export'}
            onChange={() => {
              setType('export');
              setConfirming(false);
            }}
          />
          Export: a JSON document of everything held about them, to download
        </label>
        <label>
          <input
            type="radio"
            name="privacy-type"
            checked={type === 'erase'}
            onChange={() => setType('erase')}
          />
          Erase: remove everything held about them
        </label>
        {refused('type') ? <FieldError id="privacy-type-error" refusal={refused('type')!} /> : null}
      </fieldset>
      <fieldset class="identifiers" {...invalid('privacy-subject', refused('subject'))}>
        <legend>The customer, by what your events sent (one per line)</legend>
        {refused('subject') ? <FieldError id="privacy-subject-error" refusal={refused('subject')!} /> : null}
        <div class="identifier-lists">
          {LIST_FIELDS.map(({ field, label, hint }) => {
            const shown = refused(field);
            const id = `privacy-${field}`;
            return (
              <label key={field}>
                {label} <span class="muted">{hint}</span>
                <textarea
                  id={id}
                  rows={2}
                  value={state.lists[field]}
                  onInput={(e) =>
                    setState({ ...state, lists: { ...state.lists, [field]: e.currentTarget.value } })
                  }
                  {...invalid(id, shown)}
                />
                {shown ? (
                  <FieldError
                    id={`${id}-error`}
                    refusal={shown}
                    prefix={shown.place ? `Line ${format.number(shown.place)}: ` : ''}
                  />
                ) : null}
              </label>
            );
          })}
        </div>
        {(['cards', 'addresses'] as const).map((field) => (
          <div key={field} class="identifier-rows">
            {state[field].map((row, i) => {
              const place = i + 1;
              const shown = refused(field, place);
              const id = `privacy-${field}-${place}`;
              const name = field === 'cards' ? 'Card' : 'Address';
              return (
                <fieldset key={id} class="identifier-row" {...invalid(id, shown)}>
                  <legend>
                    {name} {format.number(place)}
                  </legend>
                  {(field === 'cards' ? CARD_INPUTS : ADDRESS_INPUTS).map((input) => (
                    <label key={input.name}>
                      {input.label}
                      <input
                        value={row[input.name] ?? ''}
                        onInput={(e) => setRow(field, i, input.name, e.currentTarget.value)}
                      />
                    </label>
                  ))}
                  {shown ? <FieldError id={`${id}-error`} refusal={shown} /> : null}
                </fieldset>
              );
            })}
            <button
              type="button"
              class="secondary"
              onClick={() => setState({ ...state, [field]: [...state[field], {}] })}
            >
              {field === 'cards' ? 'Another card' : 'Another address'}
            </button>
          </div>
        ))}
      </fieldset>
      <ErrorMessage error={error} action="Filing the request" />
      {confirming ? (
        <div class="notice" role="alertdialog" aria-label="Confirm the erasure">
          <p>
            <strong>An erasure cannot be undone.</strong> It removes, at your merchant only, the customer’s
            events and everything beside them (returns, dispositions, disputes, reviews), their identity
            counters, list entries on them, webhook deliveries naming them, the text of audit entries about
            them, and your network contributions for them. Export first if you need a copy. A later event from
            the same person is scored as a new customer.
          </p>
          <div class="actions">
            <button type="button" class="danger" onClick={() => void send()}>
              Erase for good
            </button>
            <button type="button" class="secondary" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <div class="actions">
          {/* dir="auto": the ellipsis stays at the end of the English words on a right-to-left page. */}
          <button type="submit" dir="auto">
            {type === 'erase' ? 'Erase this customer…' : 'Export this customer'}
          </button>
        </div>
      )}
      {filed ? (
        <p class="success" role="status">
          {filed.type === 'erase' ? 'Erasure' : 'Export'} requested ({filed.requestId}): it runs in the
          background and shows below when done.
        </p>
      ) : null}
    </form>
  );
}
