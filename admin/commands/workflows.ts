import { readFile } from 'node:fs/promises';
import { EVENT_TYPES, type EventType } from '../../shared/contract/endpoints.ts';
import { documentedVariables } from '../../shared/scoring/variable-meanings.ts';
import { decisionTypeOf } from '../../shared/scoring/workflow.ts';
import { validateWorkflow } from '../../shared/scoring/workflow-validation.ts';
import { getWorkflow, saveWorkflow } from '../../shared/store/workflows.ts';
import {
  backtestRecent,
  DEFAULT_BACKTEST_LIMIT,
  newWorkflowVersionId,
} from '../../shared/use-cases/workflow-changes.ts';
import { type AdminCommand, CommandError, positiveInteger, requireFlag } from '../command.ts';
import { requireMerchant, requireType } from '../targets.ts';

type Flags = Record<string, string | boolean | undefined>;

const TYPES = EVENT_TYPES.join('|');

/** Merchant workflows: read, check, replace and backtest them, and list the variables they may use. */
export const workflowCommands: AdminCommand[] = [
  {
    words: ['workflows', 'get'],
    usage: `workflows get --merchant ID --type ${TYPES}`,
    options: { merchant: { type: 'string' }, type: { type: 'string' } },
    run: async (flags) => {
      const merchantId = await requireMerchant(flags);
      const eventType = requireType(flags);
      const { workflow, source, updatedAt } = await getWorkflow(merchantId, eventType);
      return {
        merchantId,
        eventType,
        source,
        ...(updatedAt ? { updatedAt } : {}),
        decisionType: decisionTypeOf(workflow),
        workflow,
      };
    },
  },
  {
    words: ['workflows', 'validate'],
    usage: `workflows validate --type ${TYPES} --file F [--merchant ID]`,
    options: { merchant: { type: 'string' }, type: { type: 'string' }, file: { type: 'string' } },
    run: async (flags) => {
      const eventType = requireType(flags);
      const workflow = validOrThrow(eventType, await readDocument(flags), 'candidate');
      return { valid: true, eventType, decisionType: decisionTypeOf(workflow), rules: workflow.rules.length };
    },
  },
  {
    words: ['workflows', 'set'],
    usage: `workflows set --merchant ID --type ${TYPES} --file F`,
    options: { merchant: { type: 'string' }, type: { type: 'string' }, file: { type: 'string' } },
    run: async (flags) => {
      const eventType = requireType(flags);
      const document = await readDocument(flags);
      const merchantId = await requireMerchant(flags);
      const now = Date.now();
      const workflow = validOrThrow(eventType, document, newWorkflowVersionId(now));
      await saveWorkflow(merchantId, workflow, now);
      return {
        merchantId,
        eventType,
        saved: true,
        version: workflow.version,
        decisionType: decisionTypeOf(workflow),
        rules: workflow.rules.map((r) => r.name),
      };
    },
  },
  {
    words: ['workflows', 'variables'],
    usage: `workflows variables [--type ${TYPES}]`,
    options: { type: { type: 'string' } },
    run: async (flags) => {
      if (flags.type !== undefined) {
        const eventType = requireType(flags);
        return { eventType, variables: documentedVariables(eventType) };
      }
      return { variables: Object.fromEntries(EVENT_TYPES.map((t) => [t, documentedVariables(t)])) };
    },
  },
  {
    words: ['workflows', 'backtest'],
    usage: `workflows backtest --merchant ID --type ${TYPES} --file F [--days 30] [--limit ${DEFAULT_BACKTEST_LIMIT}]`,
    options: {
      merchant: { type: 'string' },
      type: { type: 'string' },
      file: { type: 'string' },
      days: { type: 'string' },
      limit: { type: 'string' },
    },
    run: async (flags) => {
      const eventType = requireType(flags);
      const days = positiveInteger(flags, 'days') ?? 30;
      const limit = positiveInteger(flags, 'limit') ?? DEFAULT_BACKTEST_LIMIT;
      const candidate = validOrThrow(eventType, await readDocument(flags), 'candidate');
      const merchantId = await requireMerchant(flags);
      const { truncated, since, ...report } = await backtestRecent(merchantId, eventType, candidate, {
        days,
        limit,
      });
      return {
        merchantId,
        days,
        since,
        ...(truncated
          ? { truncated: `only the newest ${limit} events were replayed; raise --limit for more` }
          : {}),
        ...report,
      };
    },
  },
];

async function readDocument(flags: Flags): Promise<unknown> {
  const file = requireFlag(flags, 'file');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CommandError(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CommandError(`${file} is not JSON: ${(error as Error).message}`);
  }
}

function validOrThrow(eventType: EventType, document: unknown, version: string) {
  const result = validateWorkflow(eventType, document, version);
  if (!result.valid) throw new CommandError(`invalid ${eventType} workflow: ${result.errors.join('; ')}`);
  return result.workflow;
}
