import { ApiError } from '../errors.ts';
import type { ManagementUseCase } from '../http/management-handler.ts';
import { MAX_STRING_LENGTH, WORKFLOW_LIMITS } from '../schemas/fields.ts';
import { decisionTypeOf, type Workflow } from '../scoring/workflow.ts';
import { validateWorkflow } from '../scoring/workflow-validation.ts';
import { auditPut } from '../store/audit.ts';
import { getWorkflow, listWorkflowVersions, saveWorkflow } from '../store/workflows.ts';
import { newWorkflowVersionId } from '../use-cases/workflow-changes.ts';
import { eventTypeOf } from './path-types.ts';

/**
 * The workflow editor's endpoints: the same validation (and so the same messages) as the admin CLI's
 * `workflows` commands. A candidate's backtest is a job (./backtests.ts).
 */
export const showWorkflow: ManagementUseCase<'workflowShow'> = async ({ caller, pathParameters }) => {
  const state = await getWorkflow(caller.merchantId, eventTypeOf(pathParameters));
  return { body: stateOf(state.workflow, state.source, state.updatedAt) };
};

export const validateCandidate: ManagementUseCase<'workflowValidate'> = async ({ pathParameters, body }) => {
  const result = validateWorkflow(eventTypeOf(pathParameters), body.workflow, 'candidate');
  return {
    body: result.valid
      ? { valid: true, errors: [], decisionType: decisionTypeOf(result.workflow) }
      : { valid: false, errors: listedProblems(result.errors) },
  };
};

/** PUT /v1/workflows/{type}: a new live version, its history entry and the audit entry at once. */
export const saveCandidate: ManagementUseCase<'workflowSave'> = async ({ caller, pathParameters, body }) => {
  const eventType = eventTypeOf(pathParameters);
  const now = Date.now();
  const workflow = validOrThrow(eventType, body.workflow, newWorkflowVersionId(now));
  const savedAt = new Date(now).toISOString();
  await saveWorkflow(caller.merchantId, workflow, now, caller.keyName, [
    auditPut(caller.merchantId, {
      at: savedAt,
      action: 'workflow.saved',
      keyId: caller.keyId,
      keyName: caller.keyName,
      subject: `${eventType} workflow`,
      detail: `version ${workflow.version}: ${workflow.rules.map((r) => r.name).join(', ') || 'no rules'}`,
    }),
  ]);
  return { body: stateOf(workflow, 'stored', savedAt) };
};

export const listVersions: ManagementUseCase<'workflowVersions'> = async ({
  caller,
  pathParameters,
  query,
}) => {
  const page = await listWorkflowVersions(
    caller.merchantId,
    eventTypeOf(pathParameters),
    query.cursor,
    query.limit ?? 25,
  );
  return { body: { items: page.items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) } };
};

export function validOrThrow(eventType: Workflow['eventType'], document: unknown, version: string): Workflow {
  const result = validateWorkflow(eventType, document, version);
  if (result.valid) return result.workflow;
  throw new ApiError('invalid_workflow', `Invalid ${eventType} workflow: ${result.errors.join('; ')}`, {
    details: listedProblems(result.errors).map((message) => ({ code: 'invalid_workflow', message })),
  });
}

/**
 * A workflow's problems as an answer lists them: each cut to the text bound (a message may quote a
 * rule name as sent), and the first ones when there are more than the list holds (then the last line
 * says how many more), as the document declares.
 */
function listedProblems(errors: readonly string[]): string[] {
  const bounded = errors.map((message) =>
    message.length <= MAX_STRING_LENGTH ? message : `${message.slice(0, MAX_STRING_LENGTH - 1)}…`,
  );
  const room = WORKFLOW_LIMITS.problemsListed;
  if (bounded.length <= room) return bounded;
  return [...bounded.slice(0, room - 1), `…and ${bounded.length - room + 1} more problems`];
}

function stateOf(workflow: Workflow, source: 'stored' | 'default', updatedAt: string | undefined) {
  return {
    workflow,
    source,
    ...(updatedAt ? { updatedAt } : {}),
    decisionType: decisionTypeOf(workflow),
  };
}
