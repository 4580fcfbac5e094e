import { type IdentityRef, uniqueIdentities } from '../identity/identities.ts';
import { parseIdentityIds } from '../identity/identity-ids.ts';
import { METRIC } from '../identity/metrics.ts';
import { countedPhrase, plural } from '../plural.ts';
import type { ConsoleEventType } from '../schemas/console.ts';
import type { Decision } from '../scoring/decide.ts';
import type { ScoringModel } from '../scoring/model.ts';
import { modelFor } from '../scoring/models.ts';
import { DEFAULT_WORKFLOWS, type Workflow } from '../scoring/workflow.ts';
import { batchGetItems, keyString } from '../store/batch-get.ts';
import { decisionsOfItem } from '../store/decided-events.ts';
import { windowedCount } from '../store/history-windows.ts';
import { identityKey } from '../store/identity-history.ts';
import { keys, type TableKey } from '../store/keys.ts';
import { getModelVersion } from '../store/model-versions.ts';
import { getRecord } from '../store/record-once.ts';
import { getWorkflow, listWorkflowVersions } from '../store/workflows.ts';

/**
 * Why an event was decided as it was, from what its record kept: the score and every signal's value
 * and contribution (the model's weight times the value), the workflow rule that matched with the
 * variables it saw, the versions, and the counters of each identity involved, as of now.
 */
export interface DecisionExplanation {
  eventType: ConsoleEventType;
  providerId: string;
  createdAt: string;
  decisions: ExplainedDecision[];
  identities: IdentityCounters[];
}

interface ExplainedDecision {
  itemRef?: string;
  decision: Decision['decision'];
  subDecision: string;
  reason: string;
  abuseScore: number;
  modelVersion: string;
  workflowVersion: string;
  signals: { signal: string; value: number; contribution?: number }[];
  rule: { name: string; condition?: string };
  variables: Record<string, unknown>;
}

interface IdentityCounters {
  kind: string;
  digest: string;
  counters: Record<string, number>;
  linked: Record<string, number>;
  summary: string;
}

/** Where each type's record is, by the merchant's id for it. */
const RECORD_KEYS: Record<ConsoleEventType, (merchantId: string, id: string) => TableKey> = {
  order: keys.order,
  return: keys.return,
  signup: keys.signup,
  login: keys.login,
  account: keys.accountEvent,
};

const eventKeyOf = (merchantId: string, eventType: ConsoleEventType, id: string) =>
  RECORD_KEYS[eventType](merchantId, id);

/** The explanation of a decided event, or undefined when the merchant has no such event. */
export async function explainDecision(
  merchantId: string,
  eventType: ConsoleEventType,
  providerId: string,
  recordKey: TableKey = eventKeyOf(merchantId, eventType, providerId),
  now = Date.now(),
): Promise<DecisionExplanation | undefined> {
  const record = await getRecord<Record<string, unknown>>(recordKey);
  if (!record) return undefined;
  const stored = decisionsOfItem(record);
  const models = new Map<string, Promise<ScoringModel | undefined>>();
  const workflows = new Map<string, Promise<Workflow | undefined>>();
  const once = <T>(cache: Map<string, Promise<T>>, version: string, load: () => Promise<T>) => {
    if (!cache.has(version)) cache.set(version, load());
    return cache.get(version)!;
  };
  const decisions = await Promise.all(
    stored.map(async (decision, index) => {
      const model = await once(models, decision.modelVersion, () =>
        modelOfVersion(merchantId, eventType, decision.modelVersion),
      );
      const workflow = await once(workflows, decision.workflowVersion, () =>
        workflowOfVersion(merchantId, eventType, decision.workflowVersion),
      );
      return explain(decision, model, workflow, stored.length > 1 ? `line ${index + 1}` : undefined);
    }),
  );
  const identityIds = Array.isArray(record.identities) ? (record.identities as string[]) : [];
  return {
    eventType,
    providerId,
    createdAt: String(record.createdAt ?? ''),
    decisions,
    identities: await identityCounters(merchantId, uniqueIdentities(parseIdentityIds(identityIds)), now),
  };
}

function explain(
  decision: Decision,
  model: ScoringModel | undefined,
  workflow: Workflow | undefined,
  itemRef: string | undefined,
): ExplainedDecision {
  const signals = Object.entries(decision.signals ?? {})
    .map(([signal, value]) => {
      const weight = model?.weights[signal];
      return weight === undefined ? { signal, value } : { signal, value, contribution: weight * value };
    })
    .sort((a, b) => Math.abs(b.contribution ?? 0) - Math.abs(a.contribution ?? 0));
  const condition = workflow?.rules.find((rule) => rule.name === decision.subDecision)?.condition;
  return {
    ...(itemRef ? { itemRef } : {}),
    decision: decision.decision,
    subDecision: decision.subDecision,
    reason: decision.reason,
    abuseScore: decision.abuseScore,
    modelVersion: decision.modelVersion,
    workflowVersion: decision.workflowVersion,
    signals,
    rule: { name: decision.subDecision, ...(condition ? { condition } : {}) },
    variables: {
      abuseScore: decision.abuseScore,
      ...(decision.modelThresholds
        ? {
            modelDeclineAt: decision.modelThresholds.declineAt,
            modelReviewAt: decision.modelThresholds.reviewAt,
          }
        : {}),
      ...decision.signals,
      ...decision.fields,
    },
  };
}

async function modelOfVersion(
  merchantId: string,
  eventType: ConsoleEventType,
  version: string,
): Promise<ScoringModel | undefined> {
  const base = modelFor(eventType);
  if (base.version === version) return base;
  return getModelVersion(merchantId, eventType, version);
}

/** The live, the default, or a saved version of the workflow (the newest 100 saves are searched). */
async function workflowOfVersion(
  merchantId: string,
  eventType: ConsoleEventType,
  version: string,
): Promise<Workflow | undefined> {
  if (DEFAULT_WORKFLOWS[eventType].version === version) return DEFAULT_WORKFLOWS[eventType];
  const live = await getWorkflow(merchantId, eventType);
  if (live.workflow.version === version) return live.workflow;
  const saved = await listWorkflowVersions(merchantId, eventType, undefined, 100);
  return saved.items.find((v) => v.workflow.version === version)?.workflow;
}

/** METRIC's names by their short stored names, in words: `cbL` -> `lost chargebacks`. */
const METRIC_WORDS = new Map<string, string>(
  Object.entries(METRIC).map(([name, short]) => [
    short,
    name.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`),
  ]),
);

/**
 * A counter in words, to two decimals: weighted counters hold fractions (a scripted order weighs
 * by how fast it followed its signup, 0.99999... for one two seconds after).
 */
const shownCount = (n: number) => Math.round(n * 100) / 100;

/** Link attributes are `l_<kind>` sets (shared/store/identity-history.ts). */
const LINK_PREFIX = 'l_';

async function identityCounters(
  merchantId: string,
  refs: readonly IdentityRef[],
  now: number,
): Promise<IdentityCounters[]> {
  if (refs.length === 0) return [];
  const items = await batchGetItems(refs.map((ref) => identityKey(merchantId, ref)));
  return refs.map((ref) => {
    const item = items.get(keyString(identityKey(merchantId, ref)));
    const counters: Record<string, number> = {};
    for (const [short, words] of METRIC_WORDS) {
      const lifetime = windowedCount(item, short, now).lifetime;
      if (lifetime !== 0) counters[words] = lifetime;
    }
    const linked: Record<string, number> = {};
    for (const [attribute, value] of Object.entries(item ?? {})) {
      if (attribute.startsWith(LINK_PREFIX) && value instanceof Set) {
        linked[attribute.slice(LINK_PREFIX.length)] = value.size;
      }
    }
    const parts = [
      ...Object.entries(linked).map(([kind, n]) =>
        plural(n, kind, kind.endsWith('s') ? `${kind}es` : `${kind}s`),
      ),
      ...Object.entries(counters).map(([words, n]) => countedPhrase(shownCount(n), words)),
    ];
    return {
      kind: ref.kind,
      digest: ref.digest.slice(0, 8),
      counters,
      linked,
      summary: `${ref.kind}: ${parts.length > 0 ? parts.join(', ') : 'nothing counted yet'}`,
    };
  });
}
