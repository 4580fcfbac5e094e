import { describe, expect, it } from 'vitest';
import { signupRequestSchema } from '../../shared/schemas/signup.ts';
import { evaluateSignup } from '../../shared/use-cases/evaluate-signup.ts';
import { recordDisputes } from '../../shared/use-cases/record-disputes.ts';
import { signupBody } from '../support/account-fixtures.ts';
import { newMerchant } from '../support/api.ts';

/**
 * Use cases take and return plain domain values (EndpointCall in, Answer out), so a caller without
 * HTTP (the admin CLI, an import job, the dashboard's API) runs the same code the endpoints run.
 * Against DynamoDB Local, like the store tests.
 */
describe('use cases called without HTTP', () => {
  it('a signup answers its typed response, and the same call again is the stored answer replayed', async () => {
    const { merchantId } = await newMerchant();
    // A caller without HTTP validates with the same schema the endpoint uses.
    const body = signupRequestSchema.parse(signupBody());
    const call = { endpoint: 'signup' as const, merchantId, body, pathParameters: {} };
    const first = await evaluateSignup(call);
    expect(first.replayed).toBe(false);
    expect(first.response.providerSignupID).toBe(body.customerId);
    expect(first.response.Decisions[0]!.decisions[0]!.decision).toMatch(/^(APPROVE|DECLINE|REVIEW)$/);
    const again = await evaluateSignup(call);
    expect(again).toEqual({ response: first.response, replayed: true });
  });

  it('a domain failure is a typed ApiError, not an HTTP response', async () => {
    const { merchantId } = await newMerchant();
    const call = {
      endpoint: 'dispute' as const,
      merchantId,
      body: {
        dispute: [
          {
            disputeId: 'd-1',
            disputeType: 'CHARGEBACK' as const,
            disputeReason: 'FRAUD',
            disputeStatus: 'OPEN' as const,
            disputeAmount: 10,
            timestamp: Date.now(),
          },
        ],
      },
      pathParameters: { 'order-id': 'no-such-order' },
    };
    await expect(recordDisputes(call)).rejects.toMatchObject({
      name: 'ApiError',
      code: 'order_not_found',
      status: 404,
    });
  });
});
