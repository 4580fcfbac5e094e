import type { EvalContext } from '../../eval/context.ts';
import { NOMINAL } from '../../eval/params.ts';
import { SeededRandom } from '../../eval/random.ts';

/** The eval's "now" in these tests: every pattern schedules its traffic before it. */
export const END = 1_790_000_000_000;

// biome-ignore lint/suspicious/noExplicitAny: request bodies as the patterns wrote them
export type Body = any;

/** A pattern played alone at the nominal parameters: its requests in the order it wrote them. */
export function play(seed: number, write: (ctx: EvalContext) => void) {
  const sent: { path: string; body: Body }[] = [];
  write({
    rng: new SeededRandom(seed),
    now: END,
    send: (_at, path, body) => sent.push({ path, body }),
    params: NOMINAL,
  });
  return sent;
}
