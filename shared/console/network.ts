import type { ManagementUseCase } from '../http/management-handler.ts';
import { readNetworkMembership, saveMembership } from '../use-cases/network-membership.ts';

/** GET /v1/network */
export const showNetwork: ManagementUseCase<'networkShow'> = async ({ caller }) => ({
  body: await readNetworkMembership(caller.merchantId),
});

/** PUT /v1/network: audited with the console key's holder. */
export const saveNetwork: ManagementUseCase<'networkSave'> = async ({ caller, body }) => ({
  body: await saveMembership(
    caller.merchantId,
    body.enabled,
    { keyId: caller.keyId, keyName: caller.keyName },
    Date.now(),
  ),
});
