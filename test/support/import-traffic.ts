import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Delivery } from './live-traffic/delivery.ts';

/**
 * Gives a merchant its past as the merchant would: a history file (docs/operations.md, "History
 * import") of every earlier event, each dated, run through the same use cases as the API at the
 * events' own times. test/history-import.test.ts holds that this records what live delivery would.
 */
export async function importAsHistory(merchantId: string, deliveries: readonly Delivery[]): Promise<number> {
  const { getMerchant } = await import('../../shared/store/merchants.ts');
  const { importHistory } = await import('../../shared/history-import/import-history.ts');
  const { historyFile } = await import('../../shared/history-import/file-source.ts');
  const merchant = await getMerchant(merchantId);
  if (!merchant) throw new Error(`no merchant ${merchantId}`);
  const file = join(await mkdtemp(join(tmpdir(), 'history-')), 'history.ndjson');
  await writeFile(file, `${deliveries.map(historyLine).join('\n')}\n`);
  const result = await importHistory(historyFile(file), { merchant });
  if (result.imported !== deliveries.length) {
    throw new Error(`history import: ${JSON.stringify(result)} for ${deliveries.length} events`);
  }
  return result.imported;
}

function historyLine(delivery: Delivery): string {
  const pathId =
    delivery.kind === 'disposition'
      ? { returnId: delivery.pathId }
      : delivery.kind === 'dispute'
        ? { orderId: delivery.pathId }
        : {};
  return JSON.stringify({ type: delivery.kind, body: delivery.body, ...pathId });
}
