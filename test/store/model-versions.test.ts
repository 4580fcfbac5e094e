import { describe, expect, it } from 'vitest';
import {
  NO_POINTERS,
  withPromoted,
  withRolledBack,
  withShadow,
} from '../../shared/learning/model-pointers.ts';
import type { ModelVersion } from '../../shared/learning/train.ts';
import {
  getModelPointers,
  getModelVersion,
  listModelVersions,
  ModelVersionExistsError,
  saveModelPointers,
  saveModelVersion,
} from '../../shared/store/model-versions.ts';
import { StaleRecordError } from '../../shared/store/versioned.ts';
import { uid } from '../support/fixtures.ts';

const figures = {
  events: 10,
  positives: 2,
  rocAuc: 0.9,
  prAuc: null,
  thresholds: [],
  calibration: [],
  calibrationError: 1.5,
};

function version(merchantId: string, name: string, bias: number): ModelVersion {
  return {
    eventType: 'order',
    version: name,
    bias,
    weights: { lostChargebacksOnIdentities: 2.5, newCustomer: 0.123456 },
    thresholds: { declineAt: 70, reviewAt: 40 },
    merchantId,
    basedOn: 'order-default',
    trainedAt: '2026-06-01T00:00:00.000Z',
    trainedOn: { events: 50, positives: 5 },
    negativeSamplingRate: 1,
    evaluation: {
      holdout: { from: '2026-05-20T00:00:00.000Z', events: 10, positives: 2 },
      candidate: figures,
      active: { version: 'order-default', ...figures },
      censoredDeclines: { events: 4, stillDeclined: 3 },
      promotion: { promotable: true, reasons: ['not worse than the active model'] },
    },
  };
}

describe('model versions in DynamoDB Local', () => {
  it('are written once, read back exactly and listed; a second write of a version is refused', async () => {
    const merchantId = uid('m');
    const first = version(merchantId, 'order-a', -3.1);
    await saveModelVersion(first);
    await saveModelVersion(version(merchantId, 'order-b', -2.9));
    expect(await getModelVersion(merchantId, 'order', 'order-a')).toEqual(first);
    await expect(saveModelVersion({ ...first, bias: 0 })).rejects.toBeInstanceOf(ModelVersionExistsError);
    expect(await getModelVersion(merchantId, 'order', 'order-a')).toEqual(first);
    expect((await listModelVersions(merchantId, 'order')).map((v) => v.version)).toEqual([
      'order-a',
      'order-b',
    ]);
    expect(await listModelVersions(merchantId, 'return')).toEqual([]);
    expect(await getModelVersion(uid('other'), 'order', 'order-a')).toBeUndefined();
  });

  it('pointers: shadow, promote and roll back, each conditional on the revision read', async () => {
    const merchantId = uid('m');
    const a = version(merchantId, 'order-a', -3);
    const b = version(merchantId, 'order-b', -2);
    expect(await getModelPointers(merchantId, 'order')).toEqual(NO_POINTERS);

    await saveModelPointers(merchantId, 'order', NO_POINTERS, withPromoted(NO_POINTERS, a), 1);
    let pointers = await getModelPointers(merchantId, 'order');
    expect(pointers.active?.version).toBe('order-a');
    // Only the scoring part is copied into the pointers.
    expect(Object.keys(pointers.active ?? {}).sort()).toEqual([
      'bias',
      'eventType',
      'thresholds',
      'version',
      'weights',
    ]);

    await saveModelPointers(merchantId, 'order', pointers, withShadow(pointers, b), 2);
    pointers = await getModelPointers(merchantId, 'order');
    expect([pointers.active?.version, pointers.shadow?.version]).toEqual(['order-a', 'order-b']);

    const stale = pointers;
    await saveModelPointers(merchantId, 'order', pointers, withPromoted(pointers, b), 3);
    pointers = await getModelPointers(merchantId, 'order');
    expect([pointers.active?.version, pointers.shadow]).toEqual(['order-b', undefined]);
    await expect(
      saveModelPointers(merchantId, 'order', stale, withShadow(stale, undefined), 4),
    ).rejects.toBeInstanceOf(StaleRecordError);

    const back = withRolledBack(pointers)!;
    await saveModelPointers(merchantId, 'order', pointers, back, 5);
    pointers = await getModelPointers(merchantId, 'order');
    expect(pointers.active?.version).toBe('order-a');
    const toDefault = withRolledBack(pointers)!;
    await saveModelPointers(merchantId, 'order', pointers, toDefault, 6);
    pointers = await getModelPointers(merchantId, 'order');
    expect(pointers.active).toBeUndefined();
    expect(withRolledBack(pointers)).toBeUndefined();
  });
});
