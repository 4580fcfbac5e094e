import {
  PRIVACY_REQUEST_TYPES,
  type PrivacyRequestType,
  privacySubjectSchema,
} from '../../shared/schemas/privacy.ts';
import { getPrivacyRequest } from '../../shared/store/privacy-requests.ts';
import {
  privacyRequestView,
  replayTombstones,
  requestPrivacy,
  runPrivacyWorker,
  runUntilFinished,
} from '../../shared/use-cases/privacy-requests.ts';
import { type AdminCommand, CommandError, checked, requireFlag, UsageError } from '../command.ts';
import { ADMIN_CLI, adminOperator, requireMerchant } from '../targets.ts';

/**
 * Privacy requests (docs/privacy.md): erase or export one customer, as POST /v1/privacy/requests
 * does, then run its slices at once until it ends; show one; replay the tombstones after a restore.
 */
const requestCommand = (type: PrivacyRequestType): AdminCommand => ({
  words: ['privacy', type],
  usage: `privacy ${type} --merchant ID --subject '{"emails":["jane@example.com"],"cards":[{"BIN":"411111","last4":"1111","expiry":"09/27"}]}'`,
  options: { merchant: { type: 'string' }, subject: { type: 'string' } },
  run: async (flags) => {
    const merchantId = await requireMerchant(flags);
    const subject = checked(privacySubjectSchema, parseSubject(requireFlag(flags, 'subject')));
    const request = await requestPrivacy(merchantId, ADMIN_CLI, type, subject, Date.now());
    return privacyRequestView(await runUntilFinished(merchantId, request.requestId), Date.now());
  },
});

export const privacyCommands: AdminCommand[] = [
  ...PRIVACY_REQUEST_TYPES.map(requestCommand),
  {
    words: ['privacy', 'show'],
    usage: 'privacy show --merchant ID --request prv_...',
    options: { merchant: { type: 'string' }, request: { type: 'string' } },
    run: async (flags) => {
      const merchantId = requireFlag(flags, 'merchant');
      const requestId = requireFlag(flags, 'request');
      const request = await getPrivacyRequest(merchantId, requestId);
      if (!request) throw new CommandError(`no privacy request ${requestId} at ${merchantId}`);
      return privacyRequestView(request, Date.now());
    },
  },
  {
    words: ['privacy', 'run'],
    usage:
      'privacy run   (one pass of the privacy worker: a slice of every pending request, as the local poller runs)',
    options: {},
    run: async () => ({
      finished: (await runPrivacyWorker()).map(({ merchantId, requestId, type, status }) => ({
        merchantId,
        requestId,
        type,
        status,
      })),
    }),
  },
  {
    words: ['privacy', 'replay-tombstones'],
    usage: 'privacy replay-tombstones [--from-table NAME]   (after a restore: docs/operations.md)',
    options: { 'from-table': { type: 'string' } },
    run: async (flags) => {
      const from = typeof flags['from-table'] === 'string' ? flags['from-table'] : undefined;
      return replayTombstones(adminOperator(), Date.now(), from);
    },
  },
];

function parseSubject(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError('--subject must be a JSON object of identifier lists');
  }
}
