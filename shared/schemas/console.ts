import * as z from 'zod';
import { DECISION_OUTCOMES } from './decision.ts';
import { idText, text } from './fields.ts';

/**
 * Requests and answers of the management API behind the merchant console (contract 9.3: new /v1
 * endpoints). The dashboard reads them through the typed client generated from openapi.json.
 */
export const CONSOLE_EVENT_TYPES = ['order', 'return', 'signup', 'login', 'account'] as const;
const eventType = z.enum(CONSOLE_EVENT_TYPES);
const outcome = z.enum(DECISION_OUTCOMES);
export const cursor = z
  .string()
  .min(1)
  .max(2048)
  .meta({ description: 'The `nextCursor` of the previous page' });
export const pageLimit = z.coerce.number().int().min(1).max(100).optional();

/** Every list answer: a page of items and, when there are more, the cursor of the next page. */
export const page = <T extends z.ZodType>(item: T, id: string) =>
  z.object({ items: z.array(item), nextCursor: z.string().optional() }).meta({ id });

export const emptyRequestSchema = z.strictObject({});

export const consoleSessionSchema = z
  .object({
    merchantId: z.string(),
    merchantName: z.string(),
    keyId: z.string(),
    name: z.string(),
    expiresAt: z.string(),
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
  itemRef: z.string().optional(),
  decision: outcome,
  subDecision: z.string(),
  reason: z.string(),
  abuseScore: z.number(),
  modelVersion: z.string(),
  workflowVersion: z.string(),
};
const reviewedDecisionSchema = z.object(decisionSummaryFields);

export const reviewSchema = z
  .object({
    reviewId: z.string(),
    eventType,
    /** The merchant's own id of the event: what a person searches by. */
    providerId: z.string(),
    customerId: z.string().optional(),
    status: z.enum(['open', 'resolved']),
    createdAt: z.string(),
    decisions: z.array(reviewedDecisionSchema),
    resolution: z
      .object({
        outcome: z.enum(['abuse', 'legitimate']),
        note: z.string().optional(),
        resolvedAt: z.string(),
        resolvedBy: z.string().optional(),
      })
      .optional(),
  })
  .meta({ id: 'Review' });

export const reviewPageSchema = page(reviewSchema, 'ReviewPage');

const contributionSchema = z.object({
  signal: z.string(),
  value: z.number(),
  contribution: z.number().optional(),
});

const identityCountersSchema = z.object({
  kind: z.string(),
  /** The first characters of the identity's digest: enough to tell two apart, never the value. */
  digest: z.string(),
  counters: z.record(z.string(), z.number()),
  linked: z.record(z.string(), z.number()),
  summary: z.string(),
});

const explainedDecisionSchema = z.object({
  ...decisionSummaryFields,
  signals: z.array(contributionSchema),
  rule: z.object({ name: z.string(), condition: z.string().optional() }),
  variables: z.record(z.string(), z.unknown()),
});

export const decisionExplanationSchema = z
  .object({
    eventType,
    providerId: z.string(),
    createdAt: z.string(),
    decisions: z.array(explainedDecisionSchema),
    identities: z.array(identityCountersSchema),
  })
  .meta({ id: 'DecisionExplanation' });

export const reviewDetailSchema = z
  .object({ review: reviewSchema, explanation: decisionExplanationSchema.optional() })
  .meta({ id: 'ReviewDetail' });

export const resolveReviewRequestSchema = z.strictObject({
  outcome: z.enum(['abuse', 'legitimate']),
  note: text().max(1_000).optional(),
});

const workflowRuleSchema = z.object({
  name: z.string(),
  decision: outcome,
  condition: z.string(),
  reason: z.string().optional(),
});

export const workflowSchema = z
  .object({
    eventType,
    version: z.string(),
    rules: z.array(workflowRuleSchema).readonly(),
    defaultBranch: z.object({ name: z.string(), decision: outcome }),
  })
  .meta({ id: 'Workflow' });

export const workflowStateSchema = z
  .object({
    workflow: workflowSchema,
    source: z.enum(['stored', 'default']),
    updatedAt: z.string().optional(),
    decisionType: z.string(),
  })
  .meta({ id: 'WorkflowState' });

/** A candidate workflow: checked by the same validation as the admin CLI. */
export const workflowCandidateSchema = z.strictObject({
  workflow: z.unknown().meta({ description: 'The workflow document: rules and defaultBranch' }),
});

export const workflowValidationSchema = z
  .object({ valid: z.boolean(), errors: z.array(z.string()), decisionType: z.string().optional() })
  .meta({ id: 'WorkflowValidation' });

export const backtestRequestSchema = z.strictObject({
  workflow: z.unknown(),
  days: z.int().min(1).max(365).optional(),
});

export const backtestReportSchema = z
  .object({
    since: z.string(),
    truncated: z.boolean(),
    eventType: z.string(),
    candidateVersion: z.string(),
    events: z.number(),
    decisions: z.number(),
    changed: z.number(),
    branchChanged: z.number(),
    transitions: z.record(z.string(), z.number()),
    branchTransitions: z.record(z.string(), z.number()),
    outcomes: z.object({
      current: z.record(z.string(), z.number()),
      candidate: z.record(z.string(), z.number()),
    }),
    decisionsWithoutFields: z.number(),
    ruleErrors: z.record(z.string(), z.number()),
    examples: z.array(
      z.object({
        eventId: z.string(),
        createdAt: z.string(),
        abuseScore: z.number(),
        from: z.object({ decision: outcome, subDecision: z.string() }),
        to: z.object({ decision: outcome, subDecision: z.string() }),
      }),
    ),
  })
  .meta({ id: 'BacktestReport' });

export const workflowVersionSchema = z
  .object({ workflow: workflowSchema, savedAt: z.string(), savedBy: z.string() })
  .meta({ id: 'WorkflowVersion' });

export const workflowVersionPageSchema = page(workflowVersionSchema, 'WorkflowVersionPage');

/** A valid file, accepted: its rows are being recorded by a job whose status is at `Location`. */
export const uploadAcceptedSchema = z
  .object({ uploadId: z.string(), status: z.literal('recording'), rows: z.int(), returns: z.int() })
  .meta({ id: 'DispositionsUploadAccepted' });

export const uploadStatusSchema = z
  .object({
    uploadId: z.string(),
    status: z.enum(['recording', 'done', 'failed']),
    rows: z.int(),
    returns: z.int(),
    /** Returns whose dispositions this upload recorded or changed. */
    returnsRecorded: z.int(),
    /** Returns already recorded exactly as in the file (an upload of the same file again). */
    returnsAlreadyPresent: z.int(),
    /** Returns the disposition endpoint refused while recording (listed in `failures`). */
    returnsFailed: z.int(),
    failures: z.array(z.object({ returnId: z.string(), code: z.string(), message: z.string() })),
    createdAt: z.string(),
    finishedAt: z.string().optional(),
    /** Why a failed job stopped. */
    reason: z.string().optional(),
  })
  .meta({ id: 'DispositionsUploadStatus' });

export const overviewQuerySchema = z.strictObject({
  from: z.iso.date().optional().meta({ description: 'First day (UTC), default 30 days ago' }),
  to: z.iso.date().optional().meta({ description: 'Last day (UTC), default today' }),
});

export const overviewSchema = z
  .object({
    from: z.string(),
    to: z.string(),
    days: z.array(
      z.object({
        day: z.string(),
        eventType,
        APPROVE: z.int(),
        DECLINE: z.int(),
        REVIEW: z.int(),
      }),
    ),
    /** Decisions per score band of ten: `scoreBands[0]` counts scores 0-9, ..., `[9]` 90-100. */
    scoreBands: z.array(z.int()),
    topReasons: z.array(z.object({ reason: z.string(), count: z.int() })),
    openReviews: z.int(),
    truncated: z.boolean(),
  })
  .meta({ id: 'Overview' });

export const auditQuerySchema = z.strictObject({ cursor: cursor.optional(), limit: pageLimit });

export const auditEntrySchema = z
  .object({
    at: z.string(),
    action: z.enum([
      'review.resolved',
      'workflow.saved',
      'dispositions.uploaded',
      'listEntry.added',
      'listEntry.removed',
      'listEntry.displaced',
      'listRules.saved',
    ]),
    keyId: z.string(),
    keyName: z.string(),
    subject: z.string(),
    detail: z.string(),
  })
  .meta({ id: 'AuditEntry' });

export const auditPageSchema = page(auditEntrySchema, 'AuditPage');

export const pathTypeSchema = eventType;
export const pathIdSchema = idText();
export type AuditEntry = z.infer<typeof auditEntrySchema>;
export type ConsoleEventType = z.infer<typeof eventType>;
