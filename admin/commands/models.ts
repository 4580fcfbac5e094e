import { caughtUpLake } from '../../local/lake-runner.ts';
import { EVENT_TYPES, type EventType } from '../../shared/contract/endpoints.ts';
import { compareModels } from '../../shared/learning/compare.ts';
import {
  type ModelPointers,
  withPromoted,
  withRolledBack,
  withShadow,
} from '../../shared/learning/model-pointers.ts';
import { type ModelVersion, TrainingError } from '../../shared/learning/train.ts';
import type { ScoringModel } from '../../shared/scoring/model.ts';
import { modelFor } from '../../shared/scoring/models.ts';
import { isEventType } from '../../shared/scoring/workflow.ts';
import { loadWorkflow } from '../../shared/scoring/workflow-engine.ts';
import { listDecidedEvents } from '../../shared/store/decided-events.ts';
import { getMerchant } from '../../shared/store/merchants.ts';
import {
  getModelPointers,
  getModelVersion,
  listModelVersions,
  saveModelPointers,
} from '../../shared/store/model-versions.ts';
import { getWorkflow } from '../../shared/store/workflows.ts';
import {
  DEFAULT_MAX_TRAINING_ROWS,
  readTrainingSetFor,
  trainMerchantModel,
} from '../../shared/use-cases/train-merchant-model.ts';
import { type AdminCommand, CommandError, positiveInteger, requireFlag, UsageError } from '../command.ts';
import { learningStateMachineArn, trainInStage } from '../stage-learning.ts';

type Flags = Record<string, string | boolean | undefined>;

const TYPES = EVENT_TYPES.join('|');
const DAY_MS = 86_400_000;
const COMPARE_LIMIT = 10_000;
const target = { merchant: { type: 'string' }, type: { type: 'string' } } as const;
const withVersion = { ...target, version: { type: 'string' } } as const;

/** Trained models per merchant and event type: train, inspect, shadow, promote, roll back, compare. */
export const modelCommands: AdminCommand[] = [
  {
    words: ['models', 'train'],
    usage: `models train --merchant ID --type ${TYPES} [--promote] [--max-rows ${DEFAULT_MAX_TRAINING_ROWS}]`,
    options: { ...target, promote: { type: 'boolean' }, 'max-rows': { type: 'string' } },
    run: async (flags) => {
      const { merchantId, eventType } = await requireTarget(flags);
      const maxRows = positiveInteger(flags, 'max-rows');
      const stateMachineArn = learningStateMachineArn();
      if (stateMachineArn) {
        if (maxRows) throw new UsageError('--max-rows is for a local run: a stage trains with its own bound');
        return trainOnStage(stateMachineArn, merchantId, eventType, flags.promote === true);
      }
      try {
        // The nightly item's two steps: the training set from the lake (caught up with the table), the fit.
        const now = Date.now();
        const set = await readTrainingSetFor(await caughtUpLake(), {
          merchantId,
          eventType,
          now,
          ...(maxRows ? { maxRows } : {}),
        });
        const { version, promoted } = await trainMerchantModel({
          merchantId,
          eventType,
          promote: flags.promote === true,
          now,
          set,
        });
        return trainedSummary(version, promoted);
      } catch (error) {
        if (error instanceof TrainingError) throw new CommandError(`cannot train: ${error.message}`);
        throw error;
      }
    },
  },
  {
    words: ['models', 'list'],
    usage: `models list --merchant ID --type ${TYPES}`,
    options: target,
    run: async (flags) => {
      const { merchantId, eventType } = await requireTarget(flags);
      const [pointers, versions] = await Promise.all([
        getModelPointers(merchantId, eventType),
        listModelVersions(merchantId, eventType),
      ]);
      return {
        ...pointerSummary(merchantId, eventType, pointers),
        versions: versions.map((v) => ({
          version: v.version,
          trainedAt: v.trainedAt,
          trainedOn: v.trainedOn,
          thresholds: v.thresholds,
          rocAuc: v.evaluation.candidate.rocAuc,
          prAuc: v.evaluation.candidate.prAuc,
          promotable: v.evaluation.promotion.promotable,
        })),
      };
    },
  },
  {
    words: ['models', 'show'],
    usage: `models show --merchant ID --type ${TYPES} [--version V]`,
    options: withVersion,
    run: async (flags) => {
      const { merchantId, eventType } = await requireTarget(flags);
      const wanted = typeof flags.version === 'string' ? flags.version : undefined;
      if (wanted)
        return { source: 'trained', model: readable(await requireVersion(merchantId, eventType, wanted)) };
      const { active } = await getModelPointers(merchantId, eventType);
      if (active)
        return {
          source: 'trained',
          model: readable(await requireVersion(merchantId, eventType, active.version)),
        };
      return { source: 'default', model: modelFor(eventType) };
    },
  },
  {
    words: ['models', 'shadow'],
    usage: `models shadow --merchant ID --type ${TYPES} --version V`,
    options: withVersion,
    run: async (flags) => {
      const { merchantId, eventType } = await requireTarget(flags);
      const version = await requireVersion(merchantId, eventType, requireFlag(flags, 'version'));
      return changePointers(merchantId, eventType, (pointers) => {
        if (pointers.active?.version === version.version)
          throw new CommandError(`${version.version} is already active`);
        return withShadow(pointers, version);
      });
    },
  },
  {
    words: ['models', 'promote'],
    usage: `models promote --merchant ID --type ${TYPES} [--version V]`,
    options: withVersion,
    run: async (flags) => {
      const { merchantId, eventType } = await requireTarget(flags);
      const current = await getModelPointers(merchantId, eventType);
      const name = typeof flags.version === 'string' ? flags.version : current.shadow?.version;
      if (!name) throw new CommandError('no version given and no version in shadow');
      const version = await requireVersion(merchantId, eventType, name);
      return changePointers(merchantId, eventType, (pointers) => {
        if (pointers.active?.version === version.version)
          throw new CommandError(`${version.version} is already active`);
        return withPromoted(pointers, version);
      });
    },
  },
  {
    words: ['models', 'rollback'],
    usage: `models rollback --merchant ID --type ${TYPES}`,
    options: target,
    run: async (flags) => {
      const { merchantId, eventType } = await requireTarget(flags);
      return changePointers(merchantId, eventType, (pointers) => {
        const next = withRolledBack(pointers);
        if (!next) throw new CommandError('nothing to roll back to: no earlier active model');
        return next;
      });
    },
  },
  {
    words: ['models', 'compare'],
    usage: `models compare --merchant ID --type ${TYPES} [--days 30]`,
    options: { ...target, days: { type: 'string' } },
    run: async (flags) => {
      const { merchantId, eventType } = await requireTarget(flags);
      const days = positiveInteger(flags, 'days') ?? 30;
      const pointers = await getModelPointers(merchantId, eventType);
      if (!pointers.shadow) throw new CommandError('no version in shadow: put one there with models shadow');
      const [{ workflow }, { events, more }] = await Promise.all([
        getWorkflow(merchantId, eventType),
        listDecidedEvents(merchantId, eventType, Date.now() - days * DAY_MS, COMPARE_LIMIT),
      ]);
      return {
        merchantId,
        eventType,
        days,
        ...(more ? { truncated: `only the newest ${COMPARE_LIMIT} events were compared` } : {}),
        ...compareModels(
          activeModel(pointers, eventType),
          pointers.shadow,
          await loadWorkflow(workflow),
          events,
        ),
      };
    },
  },
];

/** An unknown merchant or event type is a failed command (exit 1), like a missing record. */
async function requireTarget(flags: Flags): Promise<{ merchantId: string; eventType: EventType }> {
  const merchantId = requireFlag(flags, 'merchant');
  const eventType = requireFlag(flags, 'type');
  if (!isEventType(eventType)) throw new CommandError(`unknown event type ${eventType}: one of ${TYPES}`);
  if (!(await getMerchant(merchantId))) throw new CommandError(`no merchant ${merchantId}`);
  return { merchantId, eventType };
}

/** A version to print: its kept holdout rows (data for the trade-off report) only counted. */
function trainedSummary(version: ModelVersion, promoted: boolean) {
  return {
    version: version.version,
    trainedOn: version.trainedOn,
    thresholds: version.thresholds,
    evaluation: readable(version).evaluation,
    promoted,
  };
}

/** On a stage: one execution of the learning state machine, then the version it wrote. */
async function trainOnStage(
  stateMachineArn: string,
  merchantId: string,
  eventType: EventType,
  promote: boolean,
) {
  const { executionArn, output } = await trainInStage(
    stateMachineArn,
    { merchantId, eventType, ...(promote ? { promote } : {}) },
    (line) => process.stderr.write(`${line}\n`),
  );
  const [result] = output.results ?? [];
  if (!result || 'failed' in result)
    throw new CommandError(`training failed: its retries are spent (execution ${executionArn})`);
  if (result.outcome !== 'trained' || !result.version)
    throw new CommandError(`cannot train: ${(result.reasons ?? []).join('; ')}`);
  const version = await requireVersion(merchantId, eventType, result.version);
  return { ...trainedSummary(version, result.promoted === true), execution: executionArn };
}

function readable(version: ModelVersion) {
  const { holdoutRows, ...evaluation } = version.evaluation;
  return { ...version, evaluation: { ...evaluation, holdoutRowsKept: holdoutRows?.rows.length ?? 0 } };
}

async function requireVersion(merchantId: string, eventType: EventType, version: string) {
  const found = await getModelVersion(merchantId, eventType, version);
  if (!found) throw new CommandError(`no ${eventType} model version ${version} for merchant ${merchantId}`);
  return found;
}

const activeModel = (pointers: ModelPointers, eventType: EventType): ScoringModel =>
  pointers.active ?? modelFor(eventType);

function pointerSummary(merchantId: string, eventType: EventType, pointers: ModelPointers) {
  return {
    merchantId,
    eventType,
    active: activeModel(pointers, eventType).version,
    activeSource: pointers.active ? 'trained' : 'default',
    shadow: pointers.shadow?.version ?? null,
    previous: pointers.previous.map((m) => m?.version ?? modelFor(eventType).version),
  };
}

async function changePointers(
  merchantId: string,
  eventType: EventType,
  change: (pointers: ModelPointers) => ModelPointers,
) {
  const pointers = await getModelPointers(merchantId, eventType);
  const next = change(pointers);
  await saveModelPointers(merchantId, eventType, pointers, next, Date.now());
  return pointerSummary(merchantId, eventType, next);
}
