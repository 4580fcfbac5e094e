import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { nounFor } from '../../../shared/plural.ts';
import { api, type Overview } from '../api.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { useLoad } from '../components/useLoad.ts';
import { navigate, type Route, withQuery } from '../router.ts';

const DAY_MS = 86_400_000;
const OUTCOME_COLOURS = { APPROVE: '#2f7d32', DECLINE: '#b3261e', REVIEW: '#b26a00' } as const;

/** Decisions per day by outcome, the score distribution, top reasons and open reviews. */
export function OverviewPage({ route }: { route: Route }) {
  const to = route.query.get('to') ?? new Date().toISOString().slice(0, 10);
  const from = route.query.get('from') ?? new Date(Date.parse(to) - 13 * DAY_MS).toISOString().slice(0, 10);
  const overview = useLoad(() => api.overview({ from, to }), [from, to]);
  const data = overview.data;
  const total = data ? data.scoreBands.reduce((a, b) => a + b, 0) : 0;
  return (
    <div>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          From
          <input
            type="date"
            value={from}
            max={to}
            onChange={(e) => navigate(withQuery(route, { from: e.currentTarget.value }))}
          />
        </label>
        <label>
          To
          <input
            type="date"
            value={to}
            min={from}
            onChange={(e) => navigate(withQuery(route, { to: e.currentTarget.value }))}
          />
        </label>
      </form>
      <ErrorMessage error={overview.error} action="Loading the overview" />
      {data ? (
        <>
          <div class="cards">
            <div class="card">
              <span class="figure">{total}</span> {nounFor(total, 'decision')}
            </div>
            <div class="card">
              <span class="figure">{data.openReviews}</span> {nounFor(data.openReviews, 'open review')}
            </div>
            {(['APPROVE', 'DECLINE', 'REVIEW'] as const).map((o) => (
              <div class="card" key={o}>
                <span class="figure">{data.days.reduce((n, d) => n + d[o], 0)}</span> {o.toLowerCase()}
              </div>
            ))}
          </div>
          {total === 0 ? <p class="empty">No decisions in this period</p> : null}
          <div class="charts">
            <figure>
              <figcaption>Decisions per day</figcaption>
              <DailyChart overview={data} />
            </figure>
            <figure>
              <figcaption>Score distribution</figcaption>
              <ul class="bars" aria-label="Decisions per abuse-score band">
                {data.scoreBands.map((count, band) => (
                  <li key={band}>
                    <span class="band">
                      {band * 10}–{band === 9 ? 100 : band * 10 + 9}
                    </span>
                    <span
                      class="bar"
                      style={{ width: `${total ? (count / Math.max(...data.scoreBands)) * 100 : 0}%` }}
                    />
                    <span class="num">{count}</span>
                  </li>
                ))}
              </ul>
            </figure>
          </div>
          <h2>Top reasons</h2>
          {data.topReasons.length === 0 ? (
            <p class="empty">No reasons yet</p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Reason</th>
                  <th scope="col">Decisions</th>
                </tr>
              </thead>
              <tbody>
                {data.topReasons.map((r) => (
                  <tr key={r.reason}>
                    <td>{r.reason}</td>
                    <td class="num">{r.count}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {data.truncated ? <p class="muted">Counted from the newest 20,000 events per type.</p> : null}
        </>
      ) : null}
    </div>
  );
}

/** Daily counts per outcome, every day of the period (days without decisions are zero). */
function DailyChart({ overview }: { overview: Overview }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!host.current) return;
    const days: number[] = [];
    for (let t = Date.parse(overview.from); t <= Date.parse(overview.to); t += DAY_MS) days.push(t / 1000);
    const series = (['APPROVE', 'DECLINE', 'REVIEW'] as const).map((outcome) =>
      days.map((day) => {
        const iso = new Date(day * 1000).toISOString().slice(0, 10);
        return overview.days.filter((d) => d.day === iso).reduce((n, d) => n + d[outcome], 0);
      }),
    );
    const chart = new uPlot(
      {
        width: host.current.clientWidth || 560,
        height: 220,
        scales: { x: { time: true } },
        series: [
          {},
          ...(['APPROVE', 'DECLINE', 'REVIEW'] as const).map((label) => ({
            label,
            stroke: OUTCOME_COLOURS[label],
            width: 2,
            points: { show: true },
          })),
        ],
        axes: [{}, { label: 'decisions' }],
      },
      [days, ...series],
      host.current,
    );
    return () => chart.destroy();
  }, [overview]);
  return <div ref={host} class="chart" />;
}
