import { useState } from 'preact/hooks';
import { api, type Review } from '../api.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { EventTypeSelect } from '../components/EventTypeSelect.tsx';
import { Explanation } from '../components/Explanation.tsx';
import { Time } from '../components/Time.tsx';
import { useLoad } from '../components/useLoad.ts';
import { format } from '../format.ts';
import { navigate, type Route, withQuery } from '../router.ts';

/** The review queue: filters and the open review live in the URL. */
export function ReviewsPage({ route }: { route: Route }) {
  const status = (route.query.get('status') ?? 'open') as 'open' | 'resolved';
  const eventType = route.query.get('eventType') ?? '';
  const open = route.query.get('review') ?? undefined;
  const [more, setMore] = useState<{ items: Review[]; cursor?: string }>({ items: [] });
  const list = useLoad(
    async (client) => {
      const page = await client.reviews({
        status,
        ...(eventType ? { eventType: eventType as Review['eventType'] } : {}),
      });
      setMore({ items: [], ...(page.nextCursor ? { cursor: page.nextCursor } : {}) });
      return page;
    },
    [status, eventType],
  );
  const items = [...(list.data?.items ?? []), ...more.items];
  const loadMore = async () => {
    if (!more.cursor) return;
    const page = await api.reviews({
      status,
      ...(eventType ? { eventType: eventType as Review['eventType'] } : {}),
      cursor: more.cursor,
    });
    setMore({
      items: [...more.items, ...page.items],
      ...(page.nextCursor ? { cursor: page.nextCursor } : {}),
    });
  };
  const nextOldest = items.find((r) => r.reviewId !== open && r.status === 'open');

  return (
    <div class={open ? 'split' : ''}>
      <section aria-label="Queue">
        <form class="filters" onSubmit={(e) => e.preventDefault()}>
          <label>
            Status
            <select
              value={status}
              onChange={(e) =>
                navigate(withQuery(route, { status: e.currentTarget.value, review: undefined }))
              }
            >
              <option value="open">Open</option>
              <option value="resolved">Resolved</option>
            </select>
          </label>
          <EventTypeSelect
            value={eventType}
            allLabel="All"
            onChange={(value) => navigate(withQuery(route, { eventType: value, review: undefined }))}
          />
          <button
            type="button"
            disabled={!nextOldest}
            onClick={() => nextOldest && navigate(withQuery(route, { review: nextOldest.reviewId }))}
          >
            Next oldest
          </button>
        </form>
        <ErrorMessage error={list.error} action="Loading the queue" />
        {list.loading && !list.data ? <p aria-live="polite">Loading…</p> : null}
        {list.data && items.length === 0 ? (
          <p class="empty">{status === 'open' ? 'No reviews waiting' : 'No resolved reviews yet'}</p>
        ) : null}
        {items.length > 0 ? (
          <table class="queue">
            <thead>
              <tr>
                <th scope="col">Provider id</th>
                <th scope="col">Type</th>
                <th scope="col">Queued</th>
                <th scope="col">Score</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {items.map((r) => (
                <tr key={r.reviewId} class={r.reviewId === open ? 'selected' : ''}>
                  <td>
                    <a
                      href={withQuery(route, { review: r.reviewId })}
                      onClick={(e) => {
                        e.preventDefault();
                        navigate(withQuery(route, { review: r.reviewId }));
                      }}
                    >
                      {r.providerId}
                    </a>
                  </td>
                  <td>{r.eventType}</td>
                  <td>
                    <Time value={r.createdAt} />
                  </td>
                  <td class="num">{format.number(Math.max(...r.decisions.map((d) => d.abuseScore)))}</td>
                  <td class="clip">{r.decisions[0]?.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
        {more.cursor ? (
          <button type="button" class="secondary" onClick={loadMore}>
            Load more
          </button>
        ) : null}
      </section>
      {open ? <ReviewDetail reviewId={open} onResolved={list.reload} /> : null}
    </div>
  );
}

function ReviewDetail({ reviewId, onResolved }: { reviewId: string; onResolved: () => void }) {
  const detail = useLoad((client) => client.review(reviewId), [reviewId]);
  const [outcome, setOutcome] = useState<'abuse' | 'legitimate' | ''>('');
  const [note, setNote] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const resolve = async (event: Event) => {
    event.preventDefault();
    if (!outcome) return;
    setBusy(true);
    setError(undefined);
    try {
      await api.resolveReview(reviewId, { outcome, ...(note.trim() ? { note: note.trim() } : {}) });
      setNote('');
      setOutcome('');
      detail.reload();
      onResolved();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const review = detail.data?.review;
  return (
    <section class="detail" aria-label="Review">
      <ErrorMessage error={detail.error} action="Loading the review" />
      {review ? (
        <>
          <h2>
            {review.eventType} <bdi class="provider-id">{review.providerId}</bdi>
          </h2>
          {review.resolution ? (
            <p class="resolved">
              Resolved as <strong>{review.resolution.outcome}</strong>
              {review.resolution.resolvedBy ? ` by ${review.resolution.resolvedBy}` : ''} on{' '}
              <Time value={review.resolution.resolvedAt} />
              {review.resolution.note ? `: “${review.resolution.note}”` : ''}
            </p>
          ) : (
            <form class="resolve" onSubmit={resolve}>
              <fieldset>
                <legend>Resolve as</legend>
                <label>
                  <input
                    type="radio"
                    name="outcome"
                    value="abuse"
                    checked={outcome === 'abuse'}
                    onChange={() => setOutcome('abuse')}
                  />{' '}
                  Abuse
                </label>
                <label>
                  <input
                    type="radio"
                    name="outcome"
                    value="legitimate"
                    checked={outcome === 'legitimate'}
                    onChange={() => setOutcome('legitimate')}
                  />{' '}
                  Legitimate
                </label>
              </fieldset>
              <label for="resolution-note">Note</label>
              <textarea
                id="resolution-note"
                rows={2}
                maxLength={1000}
                value={note}
                onInput={(e) => setNote(e.currentTarget.value)}
              />
              <button type="submit" disabled={!outcome || busy}>
                Resolve
              </button>
              <ErrorMessage error={error} action="Resolving" />
            </form>
          )}
          {detail.data?.explanation ? <Explanation explanation={detail.data.explanation} /> : null}
        </>
      ) : detail.loading ? (
        <p aria-live="polite">Loading…</p>
      ) : null}
    </section>
  );
}
