import * as z from 'zod';
import { ERROR_CATALOG, ERROR_ENVELOPE_LIMITS, type ErrorCode } from '../errors.ts';
import { returnedLineDecisionSchema, wireDecisionSchema } from './decision.ts';
import { boundedInt, idText, LIMITS, serviceId } from './fields.ts';

/**
 * Success bodies of the seven endpoints, field for field as docs/api.md spells them (note
 * `providerOrderID` on orders but `providerOrderId` on disputes, and the capital `Decisions` of the
 * account endpoints). Use cases are typed to return these; the OpenAPI document is generated from them.
 */
export const orderResponseSchema = z
  .object({
    providerOrderID: idText(),
    serviceOrderID: serviceId(),
    // An order is one cart with one decision.
    cartLevelDecisions: z
      .array(
        z.object({
          providerCartID: idText(),
          serviceCartID: serviceId(),
          decisions: z.array(wireDecisionSchema).max(1),
        }),
      )
      .max(1),
  })
  .meta({ id: 'OrderResponse' });

export const returnResponseSchema = z
  .object({
    providerReturnId: idText(),
    serviceReturnId: serviceId(),
    returnedLineItems: z.array(returnedLineDecisionSchema).max(LIMITS.returnedItems),
  })
  .meta({ id: 'ReturnResponse' });

export const dispositionResponseSchema = z
  .object({
    providerReturnId: idText(),
    serviceReturnId: serviceId(),
    dispositionsRecorded: boundedInt(0, LIMITS.dispositions),
    modelImpact: z.enum(['queued', 'applied']),
  })
  .meta({ id: 'DispositionResponse' });

export const disputeResponseSchema = z
  .object({
    providerOrderId: idText(),
    serviceOrderId: serviceId(),
    disputesRecorded: boundedInt(0, LIMITS.disputes),
  })
  .meta({ id: 'DisputeResponse' });

/** The decision part of signup, login and account answers: `Decisions[]` of `decisions[]`. */
const accountDecisions = z.array(z.object({ decisions: z.array(wireDecisionSchema).max(1) })).max(1);

export const signupResponseSchema = z
  .object({ providerSignupID: idText(), serviceSignupID: serviceId(), Decisions: accountDecisions })
  .meta({ id: 'SignupResponse' });

export const loginResponseSchema = z
  .object({ providerLoginID: idText(), serviceLoginID: serviceId(), Decisions: accountDecisions })
  .meta({ id: 'LoginResponse' });

export const accountResponseSchema = z
  .object({
    providerAccountEventId: idText(),
    serviceAccountEventId: serviceId(),
    Decisions: accountDecisions,
  })
  .meta({ id: 'AccountResponse' });

/** A request id: API Gateway's (a UUID), or one the service makes the same way. */
export const requestId = () => z.string().max(64);
const ERROR_CODE_MAX_LENGTH = 64;

/** The error envelope every failure answers with (docs/api.md, Errors). */
export const errorEnvelopeSchema = z
  .object({
    error: z.object({
      code: z
        .enum(Object.keys(ERROR_CATALOG) as [ErrorCode, ...ErrorCode[]])
        .meta({ description: 'Stable machine-readable code from the catalog' }),
      message: z
        .string()
        .max(ERROR_ENVELOPE_LIMITS.messageLength)
        .meta({ description: 'For logs, not end users' }),
      field: z
        .string()
        .max(ERROR_ENVELOPE_LIMITS.fieldLength)
        .optional()
        .meta({ description: 'The failing field, on validation errors' }),
      requestId: requestId().meta({ description: 'Equals the X-Request-Id response header' }),
      details: z
        .array(
          z.object({
            line: boundedInt(1, 2 ** 31 - 1).optional(),
            column: z.string().max(ERROR_ENVELOPE_LIMITS.fieldLength).optional(),
            code: z.string().max(ERROR_CODE_MAX_LENGTH),
            message: z.string().max(ERROR_ENVELOPE_LIMITS.messageLength),
          }),
        )
        .max(ERROR_ENVELOPE_LIMITS.details)
        .optional()
        .meta({ description: 'Every problem, where an answer lists several (CSV rows, workflow rules)' }),
    }),
  })
  .meta({ id: 'ErrorEnvelope' });
