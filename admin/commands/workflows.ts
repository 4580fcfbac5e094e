import { readFile } from 'node:fs/promises';
import { caughtUpLakeConnection } from '../../local/lake-runner.ts';
import { readRuntimeConfig } from '../../shared/config.ts';
import { EVENT_TYPES, type EventType } from '../../shared/contract/endpoints.ts';
import { duckDbRunner } from '../../shared/lake/lake-queries.ts';
import { backtestRequestSchema } from '../../shared/schemas/console.ts';
import { documentedVariables } from '../../shared/scoring/variable-meanings.ts';
import { decisionTypeOf } from '../../shared/scoring/workflow.ts';
import { validateWorkflow } from '../../shared/scoring/workflow-validation.ts';
import { getBacktest } from '../../shared/store/backtests.ts';
import { getWorkflow, saveWorkflow } from '../../shared/store/workflows.ts';
import { backtestView, requestBacktest, runBacktest } from '../../shared/use-cases/backtests.ts';
import { newWorkflowVersionId } from '../../shared/use-cases/workflow-changes.ts';
import { type AdminCommand, CommandError, checked, requireFlag } from '../command.ts';
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
    usage: `workflows backtest --merchant ID --type ${TYPES} --file F [--from 2026-10-01 --to 2026-10-30]`,
    options: {
      merchant: { type: 'string' },
      type: { type: 'string' },
      file: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
    },
    run: async (flags) => {
      const eventType = requireType(flags);
      const candidate = validOrThrow(eventType, await readDocument(flags), 'candidate');
      const merchantId = await requireMerchant(flags);
      const window = checked(backtestRequestSchema, {
        eventType,
        workflow: candidate,
        ...(typeof flags.from === 'string' ? { from: flags.from } : {}),
        ...(typeof flags.to === 'string' ? { to: flags.to } : {}),
      });
      const record = await requestBacktest(merchantId, window, candidate, Date.now());
      // Against AWS the recorded backtest starts the backtest state machine; `backtests show` follows it.
      if (!readRuntimeConfig().dynamoDbEndpoint) return { merchantId, ...backtestView(record) };
      const lake = await caughtUpLakeConnection();
      try {
        const done = await runBacktest(record, duckDbRunner(lake));
        return { merchantId, ...backtestView(done ?? record) };
      } finally {
        lake.closeSync();
      }
    },
  },
  {
    words: ['backtests', 'show'],
    usage: 'backtests show --merchant ID --backtest btj_...',
    options: { merchant: { type: 'string' }, backtest: { type: 'string' } },
    run: async (flags) => {
      const merchantId = requireFlag(flags, 'merchant');
      const backtestId = requireFlag(flags, 'backtest');
      const record = await getBacktest(merchantId, backtestId);
      if (!record) throw new CommandError(`no backtest ${backtestId} at ${merchantId}`);
      return { merchantId, ...backtestView(record) };
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
