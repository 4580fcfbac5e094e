import { describe, expect, it } from 'vitest';
import type { TradeoffHistogram } from '../../shared/learning/tradeoffs.ts';
import { getTradeoffHistogram, saveTradeoffHistogram } from '../../shared/store/tradeoff-histograms.ts';
import { uid } from '../support/fixtures.ts';

/** The trade-off histogram's item on DynamoDB Local, at the largest size its cells can reach. */
describe('trade-off histograms', () => {
  it('keeps the largest histogram (every score, label and value band up to a million) in one item', async () => {
    const merchantId = `mer_${uid()}`;
    const cells: TradeoffHistogram['cells'] = [];
    // Counts drawn from a fixed sequence: as varied as real ones, the same on every run.
    let draw = 12_345;
    for (let score = 0; score <= 100; score++)
      for (const label of [0, 1] as const)
        for (let band = 0; band <= Math.floor(Math.log(1 + 1_000_000) * 8); band++) {
          draw = (draw * 48_271) % 2_147_483_647;
          cells.push([score, label, Math.round(Math.expm1(band / 8) * 100) / 100, draw % 100_000]);
        }
    const histogram: TradeoffHistogram = {
      computedAt: '2026-11-27T03:00:00.000Z',
      from: '2026-08-29',
      labelledAsOf: '2026-11-27T02:59:00.000Z',
      cells,
      excluded: { unlabeled: 12, censored: 3 },
    };
    expect(JSON.stringify(histogram).length).toBeGreaterThan(400_000);
    expect(await getTradeoffHistogram(merchantId, 'order')).toBeUndefined();
    await saveTradeoffHistogram(merchantId, 'order', histogram);
    expect(await getTradeoffHistogram(merchantId, 'order')).toEqual(histogram);
    expect(await getTradeoffHistogram(merchantId, 'return')).toBeUndefined();
  });
});
