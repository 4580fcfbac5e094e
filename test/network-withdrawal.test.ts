import { randomBytes } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { forEachConcurrently } from '../shared/concurrency.ts';
import { identityDigests } from '../shared/digests/identity-digests.ts';
import { identityId } from '../shared/identity/identity-ids.ts';
import { withSighting } from '../shared/network/reputation.ts';
import { documentClient, dynamoDbClient, tableName } from '../shared/store/client.ts';
import { ensureTable } from '../shared/store/ensure-table.ts';
import { networkGsi1, networkKeys } from '../shared/store/keys.ts';
import { applyContribution, merchantLedgerEntries } from '../shared/store/network-contributions.ts';
import { getRecord } from '../shared/store/record-once.ts';
import { runNetworkWorker } from '../shared/use-cases/network-worker.ts';
import { newMerchant, withTestApi } from './support/api.ts';
import { consoleKey } from './support/console.ts';

/**
 * Leaving the network runs to the end (issue 34.3): a member with 20,000 ledger entries leaves; the
 * worker withdraws them in slices, each resuming where the ledger stands, the progress visible on
 * GET /v1/network after every slice, until nothing of the merchant is left in the network.
 */
// A table of its own: a drain of the whole network queue in another suite running meanwhile must
// not pick this withdrawal up (nor wait on its 20,000 entries).
vi.hoisted(() => {
  process.env.TABLE_NAME = 'abuse-decision-withdrawal-test';
});
beforeAll(() => ensureTable(dynamoDbClient, tableName, { stream: false }));
afterAll(() => dynamoDbClient.send(new DeleteTableCommand({ TableName: tableName })));

const ENTRIES = 20_000;
/** Entries contributed through the worker's own write, so their reputation items exist too. */
const CONTRIBUTED = 40;
const suite = withTestApi();

describe('withdrawal of a large member', () => {
  it(`withdraws ${ENTRIES.toLocaleString('en')} ledger entries in resumable slices, with its progress visible`, async () => {
    const { merchantId } = await newMerchant();
    const key = await consoleKey(merchantId);
    const network = (body?: unknown) =>
      body === undefined
        ? suite.api.request('GET', '/v1/network', { apiKey: key })
        : suite.api.request('PUT', '/v1/network', { apiKey: key, rawBody: JSON.stringify(body) });
    expect((await network({ enabled: true })).status).toBe(200);

    const now = Date.now();
    const identity = await identityDigests(merchantId);
    const refs = Array.from({ length: ENTRIES }, (_, i) =>
      identity(
        i % 2 === 0 ? 'card' : 'device',
        `withdrawal-${merchantId}-${i}-${randomBytes(4).toString('hex')}`,
      ),
    );
    const networkKeyOf = (i: number) => `wd${merchantId}${i.toString(36).padStart(5, '0')}`;
    // The first entries through the contribution itself (reputation and ledger), the rest as ledger
    // items written directly: the withdrawal reads only the ledger to find its work.
    await forEachConcurrently(
      refs.slice(0, CONTRIBUTED).map((ref, i) => ({ ref, i })),
      8,
      async ({ ref, i }) => {
        await applyContribution(
          {
            networkKey: networkKeyOf(i),
            merchantId,
            identity: ref,
            change: (l) => withSighting(l, now, now),
          },
          now,
        );
      },
    );
    const batches: Record<string, unknown>[][] = [];
    for (let i = CONTRIBUTED; i < ENTRIES; i += 25) {
      batches.push(
        refs.slice(i, i + 25).map((ref, j) => {
          const networkKey = networkKeyOf(i + j);
          return {
            ...networkKeys.ledger(networkKey, merchantId),
            ...networkGsi1.ledgerByMerchant(merchantId, networkKey),
            entity: 'networkLedger',
            merchantId,
            networkKey,
            identity: identityId(ref),
            seenAt: now,
            causes: {},
            version: 1,
          };
        }),
      );
    }
    await forEachConcurrently(batches, 8, async (items) => {
      await documentClient.send(
        new BatchWriteCommand({
          RequestItems: { [tableName]: items.map((Item) => ({ PutRequest: { Item } })) },
        }),
      );
    });
    expect(await getRecord(networkKeys.reputation(networkKeyOf(0)))).toMatchObject({ merchants: 1 });

    const left = await network({ enabled: false });
    expect(left.body).toMatchObject({ enabled: false, withdrawal: { status: 'running', withdrawn: 0 } });

    // One short slice: part of the way, and it says so.
    await runNetworkWorker({ merchantId, withdrawalSliceMs: 500 });
    const partway = (await network()).body.withdrawal;
    expect(partway.status).toBe('running');
    expect(partway.withdrawn).toBeGreaterThan(0);
    expect(partway.withdrawn).toBeLessThan(ENTRIES);
    expect(partway.updatedAt).toEqual(expect.any(String));

    // Each pass is one slice, resuming where the ledger stands, until the withdrawal leaves the queue.
    let slices = 1;
    let lastWithdrawn = partway.withdrawn as number;
    while ((await runNetworkWorker({ merchantId, withdrawalSliceMs: 5_000 })) > 0) {
      slices++;
      const progress = (await network()).body.withdrawal;
      expect(progress.withdrawn).toBeGreaterThanOrEqual(lastWithdrawn);
      lastWithdrawn = progress.withdrawn;
    }
    expect(slices).toBeGreaterThan(2);
    const done = (await network()).body.withdrawal;
    expect(done).toMatchObject({ status: 'done', withdrawn: ENTRIES, finishedAt: expect.any(String) });
    expect(await merchantLedgerEntries(merchantId, 1)).toEqual([]);
    for (let i = 0; i < CONTRIBUTED; i++)
      expect(await getRecord(networkKeys.reputation(networkKeyOf(i)))).toBeUndefined();
  });
});
