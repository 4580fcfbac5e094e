import { useCallback } from 'preact/hooks';
import { nounFor } from '../../../shared/plural.ts';
import type { Overview } from '../api.ts';
import { Chart, type ChartDrawing } from '../components/Chart.tsx';
import type { ChartLibrary } from '../components/chart-library.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { useLoad } from '../components/useLoad.ts';
import { format } from '../format.ts';
import { navigate, type Route, withQuery } from '../router.ts';

const DAY_MS = 86_400_000;
const OUTCOMES = ['APPROVE', 'DECLINE', 'REVIEW'] as const;
const OUTCOME_COLOURS = { APPROVE: '#2f7d32', DECLINE: '#b3261e', REVIEW: '#b26a00' } as const;
/** Whole days and whole decisions on the axes: uPlot would otherwise tick hours and halves. */
const DAY_STEPS = [1, 2, 7, 14, 28, 91].map((days) => (days * DAY_MS) / 1000);
const COUNT_STEPS = [1, 10, 100, 1_000, 10_000, 100_000].flatMap((p) => [p, 2 * p, 5 * p]);

/** Decisions per day by outcome, the score distribution, top reasons and open reviews. */
export function OverviewPage({ route }: { route: Route }) {
  const to = route.query.get('to') ?? new Date().toISOString().slice(0, 10);
  const from = route.query.get('from') ?? new Date(Date.parse(to) - 13 * DAY_MS).toISOString().slice(0, 10);
  const overview = useLoad((client) => client.overview({ from, to }), [from, to]);
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
              <span class="figure">{format.number(total)}</span> {nounFor(total, 'decision')}
            </div>
            <div class="card">
              <span class="figure">{format.number(data.openReviews)}</span>{' '}
              {nounFor(data.openReviews, 'open review')}
            </div>
            {OUTCOMES.map((o) => (
              <div class="card" key={o}>
                <span class="figure">{format.number(data.days.reduce((n, d) => n + d[o], 0))}</span>{' '}
                {o.toLowerCase()}
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
                      {format.number(band * 10)}–{format.number(band === 9 ? 100 : band * 10 + 9)}
                    </span>
                    <span
                      class="bar"
                      style={{ width: `${total ? (count / Math.max(...data.scoreBands)) * 100 : 0}%` }}
                    />
                    <span class="num">{format.number(count)}</span>
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
                    <td class="num">{format.number(r.count)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      ) : null}
    </div>
  );
}

/** Daily counts per outcome, every day of the period (days without decisions are zero). */
function DailyChart({ overview }: { overview: Overview }) {
  const draw = useCallback(
    (uPlot: ChartLibrary): ChartDrawing => {
      const days: number[] = [];
      for (let t = Date.parse(overview.from); t <= Date.parse(overview.to); t += DAY_MS) days.push(t / 1000);
      const series = OUTCOMES.map((outcome) =>
        days.map((day) => {
          const iso = new Date(day * 1000).toISOString().slice(0, 10);
          return overview.days.filter((d) => d.day === iso).reduce((n, d) => n + d[outcome], 0);
        }),
      );
      // uPlot passes null where the cursor is on no point (its type says number).
      const count = (value: number | null) => (value === null ? '—' : format.number(value));
      return {
        options: {
          // The API counts UTC days: ticks and labels fall on UTC midnights in every time zone.
          tzDate: (ts: number) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
          scales: { x: { time: true } },
          series: [
            { value: (_: unknown, ts: number | null) => (ts === null ? '—' : format.day(ts * 1000)) },
            ...OUTCOMES.map((label) => ({
              label,
              stroke: OUTCOME_COLOURS[label],
              width: 2,
              points: { show: true },
              value: (_: unknown, value: number | null) => count(value),
            })),
          ],
          axes: [
            {
              incrs: DAY_STEPS,
              values: (_: unknown, ticks: number[]) => ticks.map((t) => format.day(t * 1000)),
            },
            {
              label: 'decisions',
              incrs: COUNT_STEPS,
              values: (_: unknown, ticks: number[]) => ticks.map(count),
            },
          ],
        },
        data: [days, ...series],
      };
    },
    [overview],
  );
  return <Chart draw={draw} />;
}
