import * as z from 'zod';
import { ERROR_ENVELOPE_LIMITS } from '../errors.ts';
import { DECISION_OUTCOMES, decisionType } from './decision.ts';
import {
  boundedInt,
  count,
  dayRangeIssues,
  idText,
  isoDay,
  isoTime,
  LIMITS,
  label,
  MAX_CURSOR_LENGTH,
  MAX_NAME_LENGTH,
  MAX_PAGE_SIZE,
  MAX_STRING_LENGTH,
  serviceId,
  text,
  WORKFLOW_LIMITS,
  workflowBranchName,
  workflowCondition,
} from './fields.ts';

/**
 * Requests and answers of the management API behind the merchant console (docs/api.md: /v1
 * endpoints beside the event ones). The dashboard reads them through the typed client generated from openapi.json.
 */
export const CONSOLE_EVENT_TYPES = ['order', 'return', 'signup', 'login', 'account'] as const;
const eventType = z.enum(CONSOLE_EVENT_TYPES);
const outcome = z.enum(DECISION_OUTCOMES);
export const cursor = z
  .string()
  .min(1)
  .max(MAX_CURSOR_LENGTH)
  .meta({ description: 'The `nextCursor` of the previous page' });
export const pageLimit = boundedInt(1, MAX_PAGE_SIZE, { coerce: true }).optional();

/** Every list answer: a page of items and, when there are more, the cursor of the next page. */
export const page = <T extends z.ZodType>(item: T, id: string) =>
  z
    .object({
      items: z.array(item).max(MAX_PAGE_SIZE),
      nextCursor: z.string().max(MAX_CURSOR_LENGTH).optional(),
    })
    .meta({ id });
/** A reviewer's note on a resolution. */
const REVIEW_NOTE_MAX_LENGTH = 1_000;
const reviewNote = () => z.string().max(REVIEW_NOTE_MAX_LENGTH);
/** Signals a decision's explanation lists: the model's, a few dozen at most. */
const MAX_EXPLAINED_SIGNALS = 100;
/**
 * Identities an event names: an e-mail and its domain, or an address, or a phone per contact; the
 * devices (a login has two lists); a card per payment; one customer, username and the like.
 */
const MAX_EVENT_IDENTITIES = 2 * LIMITS.contacts + 2 * LIMITS.fingerprints + LIMITS.payments + 8;
/** The decisions of one event: one, or one per returned line item. */
const eventDecisions = <T extends z.ZodType>(decision: T) =>
  z.array(decision).max(Math.max(LIMITS.lineItems, LIMITS.returnedItems));

export const consoleSessionSchema = z
  .object({
    merchantId: serviceId(),
    merchantName: label(),
    keyId: serviceId(),
    name: label(),
    expiresAt: isoTime(),
  })
  .meta({ id: 'ConsoleSession' });

export const signedOutSchema = z.object({ signedOut: z.literal(true) }).meta({ id: 'SignedOut' });

export const reviewListQuerySchema = z.strictObject({
  status: z.enum(['open', 'resolved']).optional(),
  eventType: eventType.optional(),
  cursor: cursor.optional(),
  limit: pageLimit,
});

/** What every decision shown in the console says: outcome, branch, reason, score, versions. */
const decisionSummaryFields = {
  /** The returned line's identifier, on returns. */
  itemRef: idText().optional(),
  decision: outcome,
  subDecision: workflowBranchName(),
  reason: text(),
  abuseScore: z.number(),
  modelVersion: label(),
  workflowVersion: label(),
};
const reviewedDecisionSchema = z.object(decisionSummaryFields);

export const reviewSchema = z
  .object({
    reviewId: serviceId(),
    eventType,
    /** The merchant's own id of the event: what a person searches by. */
    providerId: idText(),
    customerId: idText().optional(),
    status: z.enum(['open', 'resolved']),
    createdAt: isoTime(),
    decisions: eventDecisions(reviewedDecisionSchema),
    resolution: z
      .object({
        outcome: z.enum(['abuse', 'legitimate']),
        note: reviewNote().optional(),
        resolvedAt: isoTime(),
        resolvedBy: label().optional(),
      })
      .optional(),
  })
  .meta({ id: 'Review' });

export const reviewPageSchema = page(reviewSchema, 'ReviewPage');

const contributionSchema = z.object({
  signal: label(),
  value: z.number(),
  contribution: z.number().optional(),
});

const identityCountersSchema = z.object({
  kind: label(),
  /** The first characters of the identity's digest: enough to tell two apart, never the value. */
  digest: label(),
  counters: z.record(label(), z.number()),
  linked: z.record(label(), z.number()),
  summary: text(),
});

const explainedDecisionSchema = z.object({
  ...decisionSummaryFields,
  signals: z.array(contributionSchema).max(MAX_EXPLAINED_SIGNALS),
  rule: z.object({ name: workflowBranchName(), condition: workflowCondition().optional() }),
  variables: z.record(label(), z.unknown()),
});

export const decisionExplanationSchema = z
  .object({
    eventType,
    providerId: idText(),
    createdAt: isoTime(),
    decisions: eventDecisions(explainedDecisionSchema),
    identities: z.array(identityCountersSchema).max(MAX_EVENT_IDENTITIES),
  })
  .meta({ id: 'DecisionExplanation' });

export const reviewDetailSchema = z
  .object({ review: reviewSchema, explanation: decisionExplanationSchema.optional() })
  .meta({ id: 'ReviewDetail' });

export const resolveReviewRequestSchema = z.strictObject({
  outcome: z.enum(['abuse', 'legitimate']),
  note: reviewNote().optional(),
});

const workflowRuleSchema = z.object({
  name: workflowBranchName(),
  decision: outcome,
  condition: workflowCondition(),
  reason: z.string().max(WORKFLOW_LIMITS.reasonLength).optional(),
});

const workflowSchema = z
  .object({
    eventType,
    version: label(),
    rules: z.array(workflowRuleSchema).max(WORKFLOW_LIMITS.rules).readonly(),
    defaultBranch: z.object({ name: workflowBranchName(), decision: outcome }),
  })
  .meta({ id: 'Workflow' });

export const workflowStateSchema = z
  .object({
    workflow: workflowSchema,
    source: z.enum(['stored', 'default']),
    updatedAt: isoTime().optional(),
    decisionType: decisionType(),
  })
  .meta({ id: 'WorkflowState' });

/** A candidate workflow: checked by the same validation as the admin CLI. */
export const workflowCandidateSchema = z.strictObject({
  workflow: z.unknown().meta({ description: 'The workflow document: rules and defaultBranch' }),
});

export const workflowValidationSchema = z
  .object({
    valid: z.boolean(),
    errors: z.array(z.string().max(MAX_STRING_LENGTH)).max(WORKFLOW_LIMITS.problemsListed),
    decisionType: decisionType().optional(),
  })
  .meta({ id: 'WorkflowValidation' });

/** The widest window one backtest covers: a year of days, as the lake partitions them. */
const MAX_BACKTEST_DAYS = 366;
/** The window when none is given: the last 30 days, today included. */
export const DEFAULT_BACKTEST_DAYS = 30;

export const backtestRequestSchema = z
  .strictObject({
    eventType,
    workflow: z.unknown().meta({ description: 'The candidate workflow document: rules and defaultBranch' }),
    from: isoDay()
      .optional()
      .meta({
        description: 'First day (UTC), inclusive; with `to`, or neither for the last 30 days',
        examples: ['2026-10-01'],
      }),
    to: isoDay()
      .optional()
      .meta({
        description: `Last day (UTC), inclusive: at most ${MAX_BACKTEST_DAYS} days after \`from\``,
        examples: ['2026-10-30'],
      }),
  })
  .superRefine(dayRangeIssues(MAX_BACKTEST_DAYS, { optional: true }));
export type BacktestRequest = z.infer<typeof backtestRequestSchema>;

const backtestReportSchema = z
  .object({
    eventType: label(),
    candidateVersion: label(),
    events: count(),
    decisions: count(),
    changed: count(),
    branchChanged: count(),
    /** Keyed `FROM→TO` (outcomes or branch names). */
    transitions: z.record(label(), count()),
    branchTransitions: z.record(label(), count()),
    outcomes: z.object({
      current: z.record(label(), count()),
      candidate: z.record(label(), count()),
    }),
    decisionsWithoutFields: count(),
    ruleErrors: z.record(label(), count()),
    examples: z
      .array(
        z.object({
          eventId: idText(),
          createdAt: isoTime(),
          abuseScore: z.number(),
          from: z.object({ decision: outcome, subDecision: workflowBranchName() }),
          to: z.object({ decision: outcome, subDecision: workflowBranchName() }),
        }),
      )
      .max(WORKFLOW_LIMITS.backtestExamples),
  })
  .meta({ id: 'BacktestReport' });

export const backtestStatusSchema = z
  .object({
    backtestId: serviceId(),
    status: z.enum(['pending', 'running', 'done', 'failed']).meta({
      description: '`pending` until the job starts, `running` while it re-decides, then `done` or `failed`',
    }),
    eventType,
    from: isoDay(),
    to: isoDay(),
    createdAt: isoTime(),
    startedAt: isoTime().optional(),
    finishedAt: isoTime().optional(),
    coverage: z
      .object({
        eventsInWindow: count().meta({ description: 'Decisions of the type the window holds' }),
        sampleRate: z.number().min(0).max(1).meta({
          description: '1 when every decision was re-decided; below 1, each was kept with this probability',
        }),
        sampled: count().meta({ description: 'Decisions re-decided' }),
      })
      .optional()
      .meta({ description: 'Once done: what the report stands on' }),
    report: backtestReportSchema.optional().meta({ description: 'Once done' }),
    reason: text().optional().meta({ description: 'Why a failed backtest stopped' }),
  })
  .meta({ id: 'Backtest' });
export type BacktestStatus = z.infer<typeof backtestStatusSchema>;

const workflowVersionSchema = z
  .object({ workflow: workflowSchema, savedAt: isoTime(), savedBy: label() })
  .meta({ id: 'WorkflowVersion' });

export const workflowVersionPageSchema = page(workflowVersionSchema, 'WorkflowVersionPage');

/** A valid file, accepted: its rows are being recorded by a job whose status is at `Location`. */
export const uploadAcceptedSchema = z
  .object({ uploadId: serviceId(), status: z.literal('recording'), rows: count(), returns: count() })
  .meta({ id: 'DispositionsUploadAccepted' });

/** Refused returns an upload's status lists (`returnsFailed` counts them all). */
export const MAX_UPLOAD_FAILURES_LISTED = 100;

export const uploadStatusSchema = z
  .object({
    uploadId: serviceId(),
    status: z.enum(['recording', 'done', 'failed']),
    rows: count(),
    returns: count(),
    /** Returns whose dispositions this upload recorded or changed. */
    returnsRecorded: count(),
    /** Returns already recorded exactly as in the file (an upload of the same file again). */
    returnsAlreadyPresent: count(),
    /** Returns the disposition endpoint refused while recording (the first of them in `failures`). */
    returnsFailed: count(),
    failures: z
      .array(
        z.object({
          returnId: idText(),
          code: label(),
          message: z.string().max(ERROR_ENVELOPE_LIMITS.messageLength),
        }),
      )
      .max(MAX_UPLOAD_FAILURES_LISTED),
    createdAt: isoTime(),
    finishedAt: isoTime().optional(),
    /** Why a failed job stopped. */
    reason: text().optional(),
  })
  .meta({ id: 'DispositionsUploadStatus' });

export const overviewQuerySchema = z.strictObject({
  from: isoDay().optional().meta({ description: 'First day (UTC), default 30 days ago' }),
  to: isoDay().optional().meta({ description: 'Last day (UTC), default today' }),
});

/**
 * What one overview reads (shared/console/overview.ts), whatever the merchant's size: per type, the
 * stored daily rollups (at most one item per day of the last 90) and the stream-fed counters of the
 * last `countedDays` days (one item per day), and the open reviews up to `openReviewsCounted`.
 */
export const OVERVIEW_LIMITS = {
  /** The days the nightly item recounts and the overview can show: today back to 90 days ago. */
  days: 90,
  /** Days the stream-fed counters stand in for a rollup: today, and two nights the rollup may be late. */
  countedDays: 3,
  openReviewsCounted: 1_000,
  topReasons: 8,
  scoreBands: 10,
} as const;

export const overviewSchema = z
  .object({
    from: isoDay(),
    to: isoDay(),
    /** One entry per day and event type with decisions, within the last 90 days. */
    days: z
      .array(
        z.object({
          day: isoDay(),
          eventType,
          APPROVE: count(),
          DECLINE: count(),
          REVIEW: count(),
        }),
      )
      .max(CONSOLE_EVENT_TYPES.length * OVERVIEW_LIMITS.days),
    /** Decisions per score band of ten: `scoreBands[0]` counts scores 0-9, ..., `[9]` 90-100. */
    scoreBands: z.array(count()).min(OVERVIEW_LIMITS.scoreBands).max(OVERVIEW_LIMITS.scoreBands),
    topReasons: z.array(z.object({ reason: text(), count: count() })).max(OVERVIEW_LIMITS.topReasons),
    /** Open reviews, counted up to 1,000 (1,000 means at least as many). */
    openReviews: boundedInt(0, OVERVIEW_LIMITS.openReviewsCounted),
  })
  .meta({ id: 'Overview' });

export const auditQuerySchema = z.strictObject({ cursor: cursor.optional(), limit: pageLimit });

/** An audit detail: a review's outcome and note, or a workflow's version and rule names. */
const AUDIT_DETAIL_MAX_LENGTH =
  MAX_NAME_LENGTH + WORKFLOW_LIMITS.rules * (WORKFLOW_LIMITS.branchNameLength + 2);

const auditEntrySchema = z
  .object({
    at: isoTime(),
    action: z.enum([
      'review.resolved',
      'workflow.saved',
      'dispositions.uploaded',
      'settings.saved',
      'listEntry.added',
      'listEntry.removed',
      'listEntry.displaced',
      'listRules.saved',
      'network.saved',
      'apiKey.created',
      'apiKey.revoked',
      'merchant.suspended',
      'merchant.unsuspended',
      'network.withdrawn',
      'privacy.requested',
      'privacy.erased',
      'privacy.exported',
      'export.requested',
      'export.done',
      'export.failed',
    ]),
    keyId: serviceId(),
    keyName: label(),
    subject: label(),
    detail: z.string().max(AUDIT_DETAIL_MAX_LENGTH),
  })
  .meta({ id: 'AuditEntry' });

export const auditPageSchema = page(auditEntrySchema, 'AuditPage');

export type AuditEntry = z.infer<typeof auditEntrySchema>;
export type ConsoleEventType = z.infer<typeof eventType>;
