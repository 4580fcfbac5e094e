/**
 * The attributes every job item (an export, a backtest) carries beside its own fields, by the same
 * names whatever the job: the jobs' pipe (lib/job-starts.ts) reads an inserted item's entity,
 * merchant and id by these paths and puts only them (and the item's keys) on the jobs' bus, so no
 * job item's size can stop its start.
 */
export const JOB_ITEM_ATTRIBUTES = { entity: 'entity', merchantId: 'merchantId', jobId: 'jobId' } as const;

/** A job item's common attributes: its entity (which job starts) and its id under the common name. */
export const jobItemAttributes = (entity: string, jobId: string) => ({
  [JOB_ITEM_ATTRIBUTES.entity]: entity,
  [JOB_ITEM_ATTRIBUTES.jobId]: jobId,
});
