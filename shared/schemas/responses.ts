import * as z from 'zod';
import { returnedLineDecisionSchema, wireDecisionSchema } from './decision.ts';

/**
 * Success bodies of the seven endpoints, field for field as contract 4 spells them (note
 * `providerOrderID` on orders but `providerOrderId` on disputes, and the capital `Decisions` of the
 * account endpoints). Use cases are typed to return these; the OpenAPI document is generated from them.
 */
export const orderResponseSchema = z
  .object({
    providerOrderID: z.string(),
    serviceOrderID: z.string(),
    cartLevelDecisions: z.array(
      z.object({
        providerCartID: z.string(),
        serviceCartID: z.string(),
        decisions: z.array(wireDecisionSchema),
      }),
    ),
  })
  .meta({ id: 'OrderResponse' });

export const returnResponseSchema = z
  .object({
    providerReturnId: z.string(),
    serviceReturnId: z.string(),
    returnedLineItems: z.array(returnedLineDecisionSchema),
  })
  .meta({ id: 'ReturnResponse' });

export const dispositionResponseSchema = z
  .object({
    providerReturnId: z.string(),
    serviceReturnId: z.string(),
    dispositionsRecorded: z.int().min(0),
    modelImpact: z.enum(['queued', 'applied']),
  })
  .meta({ id: 'DispositionResponse' });

export const disputeResponseSchema = z
  .object({
    providerOrderId: z.string(),
    serviceOrderId: z.string(),
    disputesRecorded: z.int().min(0),
  })
  .meta({ id: 'DisputeResponse' });

/** The decision part of signup, login and account answers: `Decisions[]` of `decisions[]`. */
const accountDecisions = z.array(z.object({ decisions: z.array(wireDecisionSchema) }));

export const signupResponseSchema = z
  .object({ providerSignupID: z.string(), serviceSignupID: z.string(), Decisions: accountDecisions })
  .meta({ id: 'SignupResponse' });

export const loginResponseSchema = z
  .object({ providerLoginID: z.string(), serviceLoginID: z.string(), Decisions: accountDecisions })
  .meta({ id: 'LoginResponse' });

export const accountResponseSchema = z
  .object({
    providerAccountEventId: z.string(),
    serviceAccountEventId: z.string(),
    Decisions: accountDecisions,
  })
  .meta({ id: 'AccountResponse' });

/** The error envelope every failure answers with (contract 7). */
export const errorEnvelopeSchema = z
  .object({
    error: z.object({
      code: z.string().meta({ description: 'Stable machine-readable code from the catalog' }),
      message: z.string().meta({ description: 'For logs, not end users' }),
      field: z.string().optional().meta({ description: 'The failing field, on validation errors' }),
      requestId: z.string().meta({ description: 'Equals the X-Request-Id response header' }),
      details: z
        .array(
          z.object({
            line: z.int().optional(),
            column: z.string().optional(),
            code: z.string(),
            message: z.string(),
          }),
        )
        .optional()
        .meta({ description: 'Every problem, where an answer lists several (CSV rows, workflow rules)' }),
    }),
  })
  .meta({ id: 'ErrorEnvelope' });
