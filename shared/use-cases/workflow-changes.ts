/** What the admin CLI and the console share when a workflow changes: its version ids. */

/** Sortable by time, unique enough for one merchant's edits: `wf_<epoch ms>_<4 random chars>`. */
export const newWorkflowVersionId = (now: number) =>
  `wf_${now}_${Math.random().toString(36).slice(2, 6).padEnd(4, '0')}`;
