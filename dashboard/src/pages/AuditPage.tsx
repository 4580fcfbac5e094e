import type { AuditPage as Page } from '../api.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Time } from '../components/Time.tsx';
import { LoadMore, usePagedLoad } from '../components/usePagedLoad.tsx';

const ACTIONS: Record<Page['items'][number]['action'], string> = {
  'review.resolved': 'Review resolved',
  'workflow.saved': 'Workflow saved',
  'settings.saved': 'Decision settings saved',
  'dispositions.uploaded': 'Dispositions uploaded',
  'listEntry.added': 'List entry added',
  'listEntry.removed': 'List entry removed',
  'listEntry.displaced': 'List entry displaced',
  'listRules.saved': 'Feedback rules saved',
  'network.saved': 'Network membership changed',
  'apiKey.created': 'API key created',
  'apiKey.revoked': 'API key revoked',
  'merchant.suspended': 'Account suspended',
  'merchant.unsuspended': 'Account suspension lifted',
  'network.withdrawn': 'Network contribution withdrawn',
  'privacy.requested': 'Privacy request received',
  'privacy.erased': 'Customer data erased',
  'privacy.exported': 'Customer data exported',
  'export.requested': 'Bulk export requested',
  'export.done': 'Bulk export ready',
  'export.failed': 'Bulk export failed',
};

/** Every change made through the console: who (key holder and key id) and when. */
export function AuditPage() {
  const log = usePagedLoad((client, cursor) => client.audit(cursor), []);
  const { items } = log;
  return (
    <div>
      <ErrorMessage error={log.error} action="Loading the audit log" />
      {log.data && items.length === 0 ? <p class="empty">No changes recorded yet</p> : null}
      {items.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">Change</th>
              <th scope="col">Subject</th>
              <th scope="col">Detail</th>
            </tr>
          </thead>
          <tbody>
            {items.map((entry) => (
              <tr key={`${entry.at}${entry.subject}`}>
                <td>
                  <Time value={entry.at} />
                </td>
                <td>
                  {entry.keyName} <span class="muted">{entry.keyId}</span>
                </td>
                <td>{ACTIONS[entry.action]}</td>
                <td>{entry.subject}</td>
                <td class="clip" title={entry.detail}>
                  {entry.detail}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <LoadMore paged={log} />
    </div>
  );
}
