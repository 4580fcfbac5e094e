import { useCallback, useState } from 'preact/hooks';
import type uPlot from 'uplot';
import {
  api,
  type ConsoleEventType,
  type DecisionSettings,
  type DecisionSettingsChange,
  type TradeoffReport,
} from '../api.ts';
import { Chart } from '../components/Chart.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { EventTypeSelect } from '../components/EventTypeSelect.tsx';
import { useLoad } from '../components/useLoad.ts';
import { format } from '../format.ts';
import { navigate, type Route, withQuery } from '../router.ts';
import { withThresholds } from '../threshold-workflow.ts';

type Curves = TradeoffReport['labeled'] | NonNullable<TradeoffReport['holdout']>;
type Point = Curves['decline'][number];
type SettingName = keyof DecisionSettings['settings'];

/** What each setting is, in the merchant's words (amounts in its own currency). */
const SETTING_LABELS: Record<SettingName, string> = {
  grossMargin: 'Gross margin (0-1)',
  chargebackFee: 'Chargeback fee',
  abusiveReturnLossShare: 'Share of an abusive return lost (0-1)',
  abusiveAccountCost: 'Cost of an abusive account',
  goodCustomerDeclineCost: 'Cost of refusing a good customer',
  reviewCost: 'Cost of a review',
  reviewCapacityPerDay: 'Reviews a day',
  maxGoodDeclinedShare: 'Good customers declined at most (0-1)',
  maxGoodReviewedShare: 'Good customers reviewed at most (0-1)',
};

const COLOURS = { caught: '#2f7d32', declined: '#b3261e', reviewed: '#b26a00', cost: '#1f4e8c' } as const;
const percent = (share: number) => `${format.number(share * 100, 1)} %`;
const money = (amount: number) => format.number(amount, 2);

/**
 * The trade-off of a threshold, per event type: for every threshold 0-100 the abuse caught, the good
 * customers declined and reviewed and the expected cost at the merchant's economics, the live
 * thresholds marked; the economics and budget editable; "use these thresholds" opens the Workflows
 * page with a candidate to backtest and save. Type and figures are in the URL.
 */
export function TradeoffsPage({ route }: { route: Route }) {
  const type = (route.query.get('type') ?? 'order') as ConsoleEventType;
  const report = useLoad((client) => client.tradeoffs(type), [type]);
  const settings = useLoad((client) => client.settings(type), [type]);
  const data = report.data;
  const figures = route.query.get('figures') === 'holdout' && data?.holdout ? data.holdout : data?.labeled;
  return (
    <div>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <EventTypeSelect value={type} onChange={(value) => navigate(withQuery(route, { type: value }))} />
        {data?.holdout ? (
          <label>
            Figures from
            <select
              value={figures === data.holdout ? 'holdout' : 'labeled'}
              onChange={(e) => navigate(withQuery(route, { figures: e.currentTarget.value }))}
            >
              <option value="labeled">Labeled decisions, last 90 days</option>
              <option value="holdout">The live model’s holdout</option>
            </select>
          </label>
        ) : null}
      </form>
      <ErrorMessage error={report.error} action="Loading the trade-off" />
      <div class="split wide">
        <section aria-label="Trade-off">
          {data && figures ? (
            <Tradeoff key={`${type}-${figures === data.holdout}`} report={data} curves={figures} />
          ) : null}
        </section>
        <section aria-label="Economics" class="detail">
          <ErrorMessage error={settings.error} action="Loading the settings" />
          {settings.data ? (
            <SettingsForm
              key={type}
              state={settings.data}
              onSaved={() => {
                settings.reload();
                report.reload();
              }}
            />
          ) : null}
        </section>
      </div>
    </div>
  );
}

function Tradeoff({ report, curves }: { report: TradeoffReport; curves: Curves }) {
  const live = curves.live;
  const [declineAt, setDeclineAt] = useState(live.declineAt.median);
  const [reviewAt, setReviewAt] = useState(live.reviewAt.median);
  const workflow = useLoad((client) => client.workflow(report.eventType), [report.eventType]);
  const chosen = curves.decline[Math.min(100, declineAt)];
  const use = () => {
    if (!workflow.data) return;
    const candidate = withThresholds(
      { rules: [...workflow.data.workflow.rules], defaultBranch: workflow.data.workflow.defaultBranch },
      declineAt,
      report.canReview && reviewAt < declineAt ? reviewAt : undefined,
    );
    navigate(
      withQuery(
        { path: '/workflows', query: new URLSearchParams() },
        {
          type: report.eventType,
          candidate: JSON.stringify(candidate),
        },
      ),
    );
  };
  const excluded = 'excluded' in curves ? curves.excluded : undefined;
  const counted = 'excluded' in curves ? curves.computedAt : undefined;
  return (
    <>
      <p>
        {curves.events === 0
          ? 'No labeled decisions yet: figures appear once feedback arrives or label windows close.'
          : `${format.count(curves.events, 'labeled event')} (${format.number(curves.abusive)} abusive, ${format.number(curves.good)} good)`}
        {excluded
          ? `; ${format.number(excluded.unlabeled)} not labeled yet and ${format.number(excluded.censored)} declined without feedback left out`
          : ''}
        .{' '}
        {excluded
          ? counted
            ? `Each at the score it was decided with; counted ${format.date(counted)} over the 90 days from ${format.day(('from' in curves && curves.from) || counted)}.`
            : 'Counted each night from the lake: not counted yet.'
          : `Scored by ${report.modelVersion}.`}
      </p>
      <figure>
        <figcaption>
          Share caught and of good customers declined and reviewed, and the expected cost, by threshold
        </figcaption>
        <TradeoffChart points={curves.decline} live={live} chosen={declineAt} />
      </figure>
      <table aria-label="Live and chosen thresholds">
        <thead>
          <tr>
            <th scope="col">Thresholds</th>
            <th scope="col" class="num">
              Abuse caught
            </th>
            <th scope="col" class="num">
              Good declined
            </th>
            <th scope="col" class="num">
              Good reviewed
            </th>
            <th scope="col" class="num">
              Expected cost
            </th>
          </tr>
        </thead>
        <tbody>
          <Row
            label={`Live: DECLINE from ${spreadText(live.declineAt)}${report.canReview ? `, REVIEW from ${spreadText(live.reviewAt)}` : ''}`}
            point={live}
          />
          {chosen ? <Row label={`DECLINE from ${format.number(declineAt)}`} point={chosen} /> : null}
        </tbody>
      </table>
      <p class="muted">Good-customer guard. {report.guard.explanation}</p>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          DECLINE from
          <input
            type="number"
            min={0}
            max={101}
            value={declineAt}
            onInput={(e) => setDeclineAt(Number(e.currentTarget.value))}
          />
        </label>
        {report.canReview ? (
          <label>
            REVIEW from
            <input
              type="number"
              min={0}
              max={101}
              value={reviewAt}
              onInput={(e) => setReviewAt(Number(e.currentTarget.value))}
            />
          </label>
        ) : null}
        <button type="button" disabled={!workflow.data} onClick={use}>
          Use these thresholds
        </button>
      </form>
      <p class="muted">
        Opens the workflow with these fixed thresholds to backtest and save as a new version.
      </p>
    </>
  );
}

const spreadText = (s: { min: number; max: number; median: number }) =>
  s.min === s.max
    ? format.number(s.median)
    : `${format.number(s.median)} (${format.number(s.min)}–${format.number(s.max)} by value)`;

function Row({ label, point }: { label: string; point: Omit<Point, 'threshold'> }) {
  return (
    <tr>
      <td>{label}</td>
      <td class="num">{percent(point.caught)}</td>
      <td class="num">{percent(point.goodDeclined)}</td>
      <td class="num">{percent(point.goodReviewed)}</td>
      <td class="num">{money(point.cost)}</td>
    </tr>
  );
}

/** The curves over 0-100, the live DECLINE (and REVIEW) median and the chosen threshold drawn as lines. */
function TradeoffChart(props: { points: Point[]; live: Curves['live']; chosen: number }) {
  const { points, live, chosen } = props;
  const draw = useCallback(() => {
    const marks = [
      { at: live.declineAt.median, colour: COLOURS.declined },
      ...(live.reviewAt.median < live.declineAt.median
        ? [{ at: live.reviewAt.median, colour: COLOURS.reviewed }]
        : []),
      { at: chosen, colour: '#000' },
    ];
    return {
      options: {
        scales: { x: { time: false }, share: { range: [0, 100] as [number, number] }, cost: {} },
        series: [
          { label: 'threshold' },
          { label: 'abuse caught %', stroke: COLOURS.caught, width: 2, scale: 'share' },
          { label: 'good declined %', stroke: COLOURS.declined, width: 2, scale: 'share' },
          { label: 'good reviewed %', stroke: COLOURS.reviewed, width: 2, scale: 'share' },
          { label: 'expected cost', stroke: COLOURS.cost, width: 1, dash: [6, 4], scale: 'cost' },
        ],
        axes: [
          {
            label: 'threshold',
            values: (_u: unknown, ticks: number[]) => ticks.map((t) => format.number(t)),
          },
          {
            scale: 'share',
            label: '%',
            values: (_u: unknown, ticks: number[]) => ticks.map((t) => format.number(t)),
          },
          {
            scale: 'cost',
            // Opposite the share axis, which the chart puts on the right when the page runs right to left.
            side: format.direction === 'rtl' ? 3 : 1,
            label: 'cost',
            values: (_u: unknown, ticks: number[]) => ticks.map((t) => format.number(t)),
          },
        ],
        hooks: {
          draw: [
            (u: uPlot) => {
              const { ctx } = u;
              for (const mark of marks) {
                const x = u.valToPos(mark.at, 'x', true);
                ctx.save();
                ctx.strokeStyle = mark.colour;
                ctx.setLineDash([2, 3]);
                ctx.beginPath();
                ctx.moveTo(x, u.bbox.top);
                ctx.lineTo(x, u.bbox.top + u.bbox.height);
                ctx.stroke();
                ctx.restore();
              }
            },
          ],
        },
      },
      data: [
        points.map((p) => p.threshold),
        points.map((p) => p.caught * 100),
        points.map((p) => p.goodDeclined * 100),
        points.map((p) => p.goodReviewed * 100),
        points.map((p) => p.cost),
      ] as uPlot.AlignedData,
    };
  }, [points, live, chosen]);
  return <Chart draw={draw} height={260} />;
}

/** The type's settings, each beside its default; saving replaces them (an empty field is the default). */
function SettingsForm({ state, onSaved }: { state: DecisionSettings; onSaved: () => void }) {
  const names = Object.keys(state.defaults) as SettingName[];
  const initial = () =>
    Object.fromEntries(names.map((n) => [n, state.customized.includes(n) ? String(state.settings[n]) : '']));
  const [values, setValues] = useState<Record<string, string>>(initial);
  const [saved, setSaved] = useState(false);
  const [failure, setFailure] = useState<unknown>();
  const save = async () => {
    setFailure(undefined);
    setSaved(false);
    const body = Object.fromEntries(
      names.filter((n) => values[n]?.trim()).map((n) => [n, Number(values[n])]),
    ) as DecisionSettingsChange;
    try {
      await api.saveSettings(state.eventType, body);
      setSaved(true);
      onSaved();
    } catch (error) {
      setFailure(error);
    }
  };
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <h2>Economics and budget</h2>
      <p class="muted">Amounts in your own currency. Leave a field empty for its default (shown).</p>
      <div class="settings-fields">
        {names.map((name) => (
          <label key={name}>
            {SETTING_LABELS[name]}
            <input
              inputMode="decimal"
              value={values[name] ?? ''}
              placeholder={String(state.defaults[name])}
              onInput={(e) => {
                setSaved(false);
                setValues({ ...values, [name]: e.currentTarget.value });
              }}
            />
          </label>
        ))}
      </div>
      <div class="actions">
        <button type="submit">Save settings</button>
      </div>
      {saved ? (
        <p class="success" role="status">
          Saved: new decisions use these numbers.
        </p>
      ) : null}
      <ErrorMessage error={failure} action="Saving the settings" />
      {state.reviews ? (
        <p class="muted">
          Reviews opened today: {format.number(state.reviews.today)} of{' '}
          {format.number(state.reviews.capacityPerDay)} (approximate while deciding).
        </p>
      ) : null}
    </form>
  );
}
