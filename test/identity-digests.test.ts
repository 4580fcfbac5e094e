import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { deleteDigestKey, readDigestKey } from '../shared/digests/digest-keys.ts';
import { identityDigests } from '../shared/digests/identity-digests.ts';
import { normalizeEmail } from '../shared/identity/identities.ts';
import { newMerchant, withTestApi } from './support/api.ts';
import { placeOrder } from './support/commerce.ts';
import { uid } from './support/fixtures.ts';
import { createOwnTable, merchantItems } from './support/table-snapshot.ts';

/**
 * Keyed digests (shared/digests/identity-digests.ts), through the local server and a scan of what
 * it stored: the same e-mail at two merchants lies under two unrelated digests, none of them the
 * plain SHA-256 anyone could compute from a guessed value, and the same merchant finds it again.
 */
// A table of its own: the test scans the table for what it stored.
vi.hoisted(() => {
  process.env.TABLE_NAME = `digests-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
});
beforeAll(() => createOwnTable());
const suite = withTestApi();

/** The digests of a merchant's e-mail identity items, read from the table itself. */
async function storedEmailDigests(merchantId: string): Promise<string[]> {
  return [...(await merchantItems(merchantId)).keys()]
    .map((key) => key.split('|')[0]!)
    .filter((pk) => pk.includes('#IDENTITY#email#'))
    .map((pk) => pk.split('#').at(-1)!);
}

const unkeyed = (kind: string, normalized: string) =>
  createHash('sha256').update(`${kind}:${normalized}`).digest('base64url').slice(0, 22);

describe('keyed identity digests', () => {
  it('the same e-mail at two merchants is stored under different digests, neither the unkeyed one', async () => {
    const email = `${uid('shared')}@example.com`;
    const [a, b] = [await newMerchant(), await newMerchant()];
    await placeOrder(suite.api, a.apiKey, { email });
    await placeOrder(suite.api, a.apiKey, { email });
    await placeOrder(suite.api, b.apiKey, { email });
    const [atA, atB] = [await storedEmailDigests(a.merchantId), await storedEmailDigests(b.merchantId)];
    // Two orders at A found the one identity again; B's is its own.
    expect(atA).toHaveLength(1);
    expect(atB).toHaveLength(1);
    expect(atA[0]).not.toBe(atB[0]);
    expect([atA[0], atB[0]]).not.toContain(unkeyed('email', normalizeEmail(email)));
    // What each merchant's own digest function gives: a privacy request finds the subject with it.
    expect((await identityDigests(a.merchantId))('email', normalizeEmail(email)).digest).toBe(atA[0]);
    for (const merchant of [a, b]) {
      const stored = [...(await merchantItems(merchant.merchantId)).values()].join('\n');
      expect(stored.toLowerCase()).not.toContain(email.toLowerCase());
    }
  });

  it('a merchant’s key is read once per process, and once deleted its digests are another key’s', async () => {
    const { merchantId } = await newMerchant();
    const key = await readDigestKey(merchantId);
    expect(key).toHaveLength(32);
    expect(await readDigestKey(merchantId)).toBe(key);
    const before = (await identityDigests(merchantId))('email', 'ann@example.com').digest;
    await deleteDigestKey(merchantId);
    await deleteDigestKey(merchantId);
    const after = (await identityDigests(merchantId))('email', 'ann@example.com').digest;
    expect(after).not.toBe(before);
  });
});
