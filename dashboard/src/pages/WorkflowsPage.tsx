import { useEffect, useState } from 'preact/hooks';
import { api, type Backtest as BacktestJob, type ConsoleEventType, type Workflow } from '../api.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { EventTypeSelect } from '../components/EventTypeSelect.tsx';
import { Time } from '../components/Time.tsx';
import { useLoad } from '../components/useLoad.ts';
import { usePolledJob } from '../components/usePolledJob.ts';
import { format } from '../format.ts';
import { navigate, type Route, withQuery } from '../router.ts';
import { draftFromUrl } from '../threshold-workflow.ts';

type Rule = Workflow['rules'][number];
type Draft = { rules: Rule[]; defaultBranch: Workflow['defaultBranch'] };
const OUTCOMES = ['APPROVE', 'DECLINE', 'REVIEW'] as const;
/** How often a running backtest is read. */
const POLL_MS = 1_000;
const running = (job: BacktestJob) => job.status === 'pending' || job.status === 'running';

/** Messages name a rule as `rule "x" (#2)`: shown under that rule; the others under the editor. */
const ruleOf = (message: string) => Number(/^rule(?: "[^"]*")? \(#(\d+)\)/.exec(message)?.[1] ?? 0) - 1;

/** The workflow editor: rules checked as they are typed, a backtest before saving, the saved versions. */
export function WorkflowsPage({ route }: { route: Route }) {
  const type = (route.query.get('type') ?? 'order') as ConsoleEventType;
  const live = useLoad((client) => client.workflow(type), [type]);
  const versions = useLoad((client) => client.workflowVersions(type), [type]);
  const [draft, setDraft] = useState<Draft>();
  const [errors, setErrors] = useState<string[]>([]);
  // The backtest job started for a draft (`of`: the draft's text), followed until it ends.
  const [started, setStarted] = useState<{ backtestId: string; of: string }>();
  const job = usePolledJob(started?.backtestId, api.backtest, running, POLL_MS);
  const [failure, setFailure] = useState<{ error: unknown; action: string }>();
  const [saved, setSaved] = useState<string>();

  // A candidate in the URL (the Trade-off page's thresholds) is the draft, else the live workflow.
  const candidate = draftFromUrl(route.query.get('candidate'));
  useEffect(() => {
    if (live.data)
      setDraft(
        candidate ?? {
          rules: [...live.data.workflow.rules],
          defaultBranch: live.data.workflow.defaultBranch,
        },
      );
    setStarted(undefined);
    setSaved(undefined);
  }, [live.data, route.query.get('candidate')]);

  const text = JSON.stringify(draft);
  // Inline validation: the API's own messages, a moment after typing stops.
  useEffect(() => {
    if (!draft) return;
    const timer = setTimeout(() => {
      api.validateWorkflow(type, draft).then(
        (result) => setErrors(result.errors),
        (error: unknown) => setFailure({ error, action: 'Checking the workflow' }),
      );
    }, 250);
    return () => clearTimeout(timer);
  }, [text, type]);

  if (!draft) {
    return <ErrorMessage error={live.error} action="Loading the workflow" />;
  }
  const change = (next: Draft) => {
    setDraft(next);
    setSaved(undefined);
  };
  const setRule = (index: number, patch: Partial<Rule>) =>
    change({ ...draft, rules: draft.rules.map((r, i) => (i === index ? { ...r, ...patch } : r)) });
  const backtested = started?.of === text && job.status?.status === 'done';
  const runBacktest = async () => {
    setFailure(undefined);
    try {
      const accepted = await api.startBacktest(type, draft);
      setStarted({ backtestId: accepted.backtestId, of: text });
    } catch (error) {
      setFailure({ error, action: 'The backtest' });
    }
  };
  const save = async () => {
    setFailure(undefined);
    try {
      const state = await api.saveWorkflow(type, draft);
      setSaved(state.workflow.version);
      versions.reload();
    } catch (error) {
      setFailure({ error, action: 'Saving' });
    }
  };
  const general = errors.filter((e) => ruleOf(e) < 0);

  return (
    <div class="split wide">
      <section aria-label="Editor">
        <form class="filters" onSubmit={(e) => e.preventDefault()}>
          <EventTypeSelect value={type} onChange={(value) => navigate(withQuery(route, { type: value }))} />
          <span class="muted">Live: {saved ?? `${live.data?.workflow.version} (${live.data?.source})`}</span>
        </form>
        {candidate ? (
          <p class="notice">Thresholds from the Trade-off page: backtest this version, then save it.</p>
        ) : null}
        <ol class="rules">
          {draft.rules.map((rule, index) => {
            const ruleErrors = errors.filter((e) => ruleOf(e) === index);
            const id = `rule-${index}`;
            return (
              <li key={index} class={ruleErrors.length > 0 ? 'invalid' : ''}>
                <div class="rule-fields">
                  <label>
                    Name
                    <input
                      value={rule.name}
                      onInput={(e) => setRule(index, { name: e.currentTarget.value })}
                    />
                  </label>
                  <label>
                    Decision
                    <select
                      value={rule.decision}
                      onChange={(e) =>
                        setRule(index, { decision: e.currentTarget.value as Rule['decision'] })
                      }
                    >
                      {OUTCOMES.map((o) => (
                        <option key={o}>{o}</option>
                      ))}
                    </select>
                  </label>
                  <label class="grow">
                    Condition
                    <input
                      class="code"
                      value={rule.condition}
                      aria-invalid={ruleErrors.length > 0}
                      aria-describedby={ruleErrors.length > 0 ? `${id}-errors` : undefined}
                      onInput={(e) => setRule(index, { condition: e.currentTarget.value })}
                    />
                  </label>
                  <button
                    type="button"
                    class="secondary"
                    aria-label={`Remove rule ${index + 1}`}
                    onClick={() => change({ ...draft, rules: draft.rules.filter((_, i) => i !== index) })}
                  >
                    Remove
                  </button>
                </div>
                {ruleErrors.length > 0 ? (
                  <ul class="field-errors" id={`${id}-errors`}>
                    {ruleErrors.map((e) => (
                      <li key={e}>{e}</li>
                    ))}
                  </ul>
                ) : null}
              </li>
            );
          })}
        </ol>
        <button
          type="button"
          class="secondary"
          onClick={() =>
            change({
              ...draft,
              rules: [
                ...draft.rules,
                {
                  name: `rule_${draft.rules.length + 1}`,
                  decision: 'DECLINE',
                  condition: 'abuseScore >= 90',
                },
              ],
            })
          }
        >
          Add rule
        </button>
        <div class="rule-fields default-branch">
          <label>
            Otherwise (default branch)
            <input
              value={draft.defaultBranch.name}
              onInput={(e) =>
                change({ ...draft, defaultBranch: { ...draft.defaultBranch, name: e.currentTarget.value } })
              }
            />
          </label>
          <label>
            Decision
            <select
              value={draft.defaultBranch.decision}
              onChange={(e) =>
                change({
                  ...draft,
                  defaultBranch: {
                    ...draft.defaultBranch,
                    decision: e.currentTarget.value as Rule['decision'],
                  },
                })
              }
            >
              {OUTCOMES.map((o) => (
                <option key={o}>{o}</option>
              ))}
            </select>
          </label>
        </div>
        {general.length > 0 ? (
          <ul class="field-errors">
            {general.map((e) => (
              <li key={e}>{e}</li>
            ))}
          </ul>
        ) : null}
        <p class="status" aria-live="polite">
          {errors.length > 0
            ? `${format.count(errors.length, 'problem')} to fix before saving.`
            : 'No problems found.'}
        </p>
        <div class="actions">
          <button type="button" disabled={errors.length > 0} onClick={runBacktest}>
            Backtest
          </button>
          <button
            type="button"
            disabled={errors.length > 0 || !backtested || saved !== undefined}
            onClick={save}
          >
            Save
          </button>
          {!backtested && errors.length === 0 ? (
            <span class="muted">Backtest this version before saving.</span>
          ) : null}
        </div>
        {saved ? (
          <p class="success" role="status">
            Saved as version {saved}; new events are decided by it now.
          </p>
        ) : null}
        {failure ? <ErrorMessage error={failure.error} action={failure.action} /> : null}
        <ErrorMessage error={job.error} action="Reading the backtest" />
        {job.status ? <Backtest job={job.status} stale={started?.of !== text} /> : null}
      </section>
      <section aria-label="Versions" class="detail">
        <h2>Saved versions</h2>
        <ErrorMessage error={versions.error} action="Loading the versions" />
        {versions.data && versions.data.items.length === 0 ? (
          <p class="empty">No saved versions: the default workflow decides.</p>
        ) : null}
        <ul class="versions">
          {versions.data?.items.map((v) => (
            <li key={v.workflow.version}>
              <strong>{v.workflow.version}</strong> by {v.savedBy}, <Time value={v.savedAt} />
              <br />
              <span class="muted">
                {v.workflow.rules.map((r) => `${r.name} → ${r.decision}`).join('; ') || 'no rules'}
              </span>
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}

function Backtest({ job, stale }: { job: BacktestJob; stale: boolean }) {
  const window = (
    <>
      <Time value={job.from} date /> to <Time value={job.to} date />
    </>
  );
  if (running(job))
    return (
      <section class="backtest" aria-label="Backtest">
        <h2>Backtest</h2>
        <p aria-live="polite">
          <progress aria-label="Backtest progress" /> Decisions of {window}:{' '}
          {job.status === 'pending' ? 'waiting for the job to start' : 're-deciding them'}…
        </p>
      </section>
    );
  if (job.status === 'failed' || !job.report || !job.coverage)
    return (
      <p class="error" role="alert">
        The backtest failed: {job.reason ?? 'no reason given'}
      </p>
    );
  const { report, coverage } = job;
  return (
    <section class="backtest" aria-label="Backtest">
      <h2>Backtest{stale ? ' (of an earlier edit)' : ''}</h2>
      <p>
        Replayed {format.count(report.decisions, 'decision')} of {format.count(report.events, 'event')} from{' '}
        {window}: <strong>{format.number(report.changed)}</strong> would change outcome,{' '}
        {format.number(report.branchChanged)} only their branch.{' '}
        {coverage.sampleRate < 1
          ? `A uniform sample of ${format.number(coverage.sampled)} of the window's ${format.number(coverage.eventsInWindow)} decisions (${format.number(coverage.sampleRate * 100, 1)} %).`
          : 'Every decision of the window.'}
      </p>
      <table>
        <thead>
          <tr>
            <th scope="col">Outcome</th>
            <th scope="col" class="num">
              Now
            </th>
            <th scope="col" class="num">
              With this version
            </th>
          </tr>
        </thead>
        <tbody>
          {OUTCOMES.map((o) => (
            <tr key={o}>
              <td>{o}</td>
              <td class="num">{format.number(report.outcomes.current[o] ?? 0)}</td>
              <td class="num">{format.number(report.outcomes.candidate[o] ?? 0)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
