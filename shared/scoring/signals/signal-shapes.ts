import { plural } from '../../plural.ts';
import type { HistoryWindow, IdentitySnapshot } from '../identity-snapshot.ts';
import {
  declareSignal,
  KIND_WORDS,
  kindWord,
  type MostOnIdentity,
  maxCount,
  maxOtherLinks,
  perEvent,
  SILENT_BELOW,
  type SignalDeclaration,
  saturating,
} from './signal.ts';

/**
 * The shapes most signals share, each a declaration built from a few words: a yes/no fact, the most
 * events of a metric on the event's identities, other identities linked to them. A signal of one of
 * these shapes is one call; anything else is written with `declareSignal`.
 */

/** A yes/no fact of the event: 1 with its evidence when it holds. */
export function flagSignal<Input, Name extends string>(
  name: Name,
  holds: (input: Input) => boolean,
  evidence: string | ((input: Input) => string),
): SignalDeclaration<Input, Name> {
  return declareSignal(name, (input) =>
    holds(input)
      ? { value: 1, evidence: typeof evidence === 'string' ? evidence : evidence(input) }
      : undefined,
  );
}

const WINDOW_WORDS: Record<HistoryWindow, string> = {
  m15: ' in the last 15 minutes',
  h1: ' in the last hour',
  h24: ' in the last 24 hours',
  d30: ' in 30 days',
  d365: ' in 365 days',
  lifetime: '',
};

/**
 * The most events of one metric in one window on any of some identities of the event: fires above
 * `allowance` (default 0) with log2(1 + the count above it), naming the identity that holds the
 * count: `3 lost chargebacks on this card in 365 days`. `most(input)` is that count, read once per
 * event, for a signal that takes it off its own (`less`).
 */
export function mostOnIdentities<Input extends object, Name extends string>(
  name: Name,
  spec: {
    identities: (input: Input) => readonly IdentitySnapshot[];
    metric: string;
    window: HistoryWindow;
    /** One event in words: `lost chargeback` (the count makes it plural). */
    event: string;
    /** Words after the identity, before the window: `resolved as legitimate`. */
    qualifier?: string;
    /** As many as the signal tolerates: it fires above this many and values only the excess. */
    allowance?: number;
    /** Events taken off the count: those another signal reads already. */
    less?: (input: Input) => MostOnIdentity;
    /** A metric counting some of `metric`'s events that do not count here, per identity. */
    except?: string;
    /** Events on one identity that another signal reads already, per identity. */
    readElsewhere?: (input: Input) => (identity: IdentitySnapshot) => number;
    /** How much the count says for this event, 0..1 (default 1): the value is scaled by it. */
    weight?: (input: Input) => number;
  },
): SignalDeclaration<Input, Name> & { most: (input: Input) => MostOnIdentity } {
  const allowance = spec.allowance ?? 0;
  const qualifier = spec.qualifier ? ` ${spec.qualifier}` : '';
  const most = perEvent((input: Input) =>
    maxCount(spec.identities(input), spec.metric, spec.window, spec.except, spec.readElsewhere?.(input)),
  );
  return {
    most,
    ...declareSignal(name, (input: Input) => {
      const found = most(input);
      const count = spec.less ? Math.max(0, found.count - spec.less(input).count) : found.count;
      const value = saturating(count - allowance) * (spec.weight ? spec.weight(input) : 1);
      if (count <= allowance || value < SILENT_BELOW) return undefined;
      return {
        value,
        evidence: `${plural(count, spec.event)} on this ${kindWord(found.kind)}${qualifier}${WINDOW_WORDS[spec.window]}`,
      };
    }),
  };
}

/**
 * Other identities of one kind already linked to some identity of the event (the event's own left
 * out), the most over those identities: log2(1 + n), `card used with 2 other e-mails`.
 */
export function othersLinked<Input, Name extends string>(
  name: Name,
  spec: {
    holders: (input: Input) => readonly IdentitySnapshot[];
    counted: string;
    own: (input: Input) => readonly { digest: string }[];
    /** The holder and how the others relate to it: `card used with`, `device already behind`. */
    words: string;
    /** How much the others say for this event, 0..1 (default 1): the value is scaled by it. */
    weight?: (input: Input) => number;
    /** Others explained for this event (a household's: household.ts): they do not count. */
    explained?: (input: Input) => number;
  },
): SignalDeclaration<Input, Name> {
  return declareSignal(name, (input) => {
    const others = maxOtherLinks(spec.holders(input), spec.counted, spec.own(input));
    const counted = Math.max(0, others - (spec.explained ? spec.explained(input) : 0));
    const value = saturating(counted) * (spec.weight ? spec.weight(input) : 1);
    if (others <= 0 || value < SILENT_BELOW) return undefined;
    return {
      value,
      evidence: `${spec.words} ${plural(others, `other ${KIND_WORDS[spec.counted]}`)}`,
    };
  });
}
