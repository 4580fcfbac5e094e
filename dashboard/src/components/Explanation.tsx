import type { DecisionExplanation } from '../api.ts';
import { format } from '../format.ts';

/** Why an event was decided so: score, signals and contributions, rule and variables, identities. */
export function Explanation({ explanation }: { explanation: DecisionExplanation }) {
  return (
    <section class="explanation" aria-label="Explanation">
      {explanation.decisions.map((d, i) => (
        <div class="decision" key={d.itemRef ?? i}>
          <h3>
            {d.itemRef ? `${d.itemRef}: ` : ''}
            <span class={`outcome ${d.decision}`}>{d.decision}</span> with abuse score{' '}
            {format.number(d.abuseScore)}
          </h3>
          <p class="reason">{d.reason}</p>
          <dl class="facts">
            <dt>Rule</dt>
            <dd>
              <code>{d.rule.name}</code>
              {d.rule.condition ? (
                <>
                  {' '}
                  when <code>{d.rule.condition}</code>
                </>
              ) : (
                ' (default branch)'
              )}
            </dd>
            <dt>Model</dt>
            <dd>{d.modelVersion}</dd>
            <dt>Workflow</dt>
            <dd>{d.workflowVersion}</dd>
          </dl>
          <table>
            <caption>Signals</caption>
            <thead>
              <tr>
                <th scope="col">Signal</th>
                <th scope="col" class="num">
                  Value
                </th>
                <th scope="col" class="num">
                  Contribution (log-odds)
                </th>
              </tr>
            </thead>
            <tbody>
              {d.signals.map((s) => (
                <tr key={s.signal}>
                  <td>{s.signal}</td>
                  <td class="num">{format.number(s.value)}</td>
                  <td class="num">{s.contribution === undefined ? '—' : format.number(s.contribution)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <details>
            <summary>Variables the rule saw</summary>
            <pre>{JSON.stringify(d.variables, null, 2)}</pre>
          </details>
        </div>
      ))}
      <h3>Identities involved</h3>
      {explanation.identities.length === 0 ? (
        <p class="empty">No identities recorded.</p>
      ) : (
        <ul class="identities">
          {explanation.identities.map((identity) => (
            <li key={`${identity.kind}${identity.digest}`}>
              {identity.summary} <span class="muted">({identity.digest}…)</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
