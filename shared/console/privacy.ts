import { notFound } from '../errors.ts';
import type { ManagementUseCase } from '../http/management-handler.ts';
import { getPrivacyRequest, listPrivacyRequests } from '../store/privacy-requests.ts';
import { privacyRequestView, requestPrivacy } from '../use-cases/privacy-requests.ts';

/** POST /v1/privacy/requests: accepted at once (202), run by the privacy worker. */
export const createPrivacyRequest: ManagementUseCase<'privacyRequestCreate'> = async ({ caller, body }) => {
  const now = Date.now();
  const request = await requestPrivacy(
    caller.merchantId,
    { keyId: caller.keyId, keyName: caller.keyName },
    body.type,
    body.subject,
    now,
  );
  return {
    body: await privacyRequestView(request, now),
    headers: { Location: `/v1/privacy/requests/${request.requestId}` },
  };
};

/** GET /v1/privacy/requests: newest first, each as GET on its own answers it (links signed now). */
export const listPrivacy: ManagementUseCase<'privacyRequestList'> = async ({ caller, query }) => {
  const page = await listPrivacyRequests(caller.merchantId, query.cursor, query.limit ?? 50);
  const now = Date.now();
  const items = await Promise.all(page.items.map((request) => privacyRequestView(request, now)));
  return { body: { items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) } };
};

/** GET /v1/privacy/requests/{request-id} */
export const showPrivacyRequest: ManagementUseCase<'privacyRequestShow'> = async ({
  caller,
  pathParameters,
}) => {
  const request = await getPrivacyRequest(caller.merchantId, pathParameters['request-id'] ?? '');
  if (!request) throw notFound('No privacy request with this id.');
  return { body: await privacyRequestView(request, Date.now()) };
};
