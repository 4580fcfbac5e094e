import * as z from 'zod';
import { count, isoTime } from './fields.ts';

/**
 * The merchant's membership of the opt-in network (docs/network.md): contributing its confirmed
 * abuse and first sightings, and reading other members' reputation, go together.
 */
/**
 * The latest withdrawal of what the merchant contributed (it runs after leaving, slice by slice):
 * `running` until no contribution is left, then `done`. `withdrawn` counts the network identities
 * taken back by the slices that have finished.
 */
const withdrawalProgressSchema = z
  .object({
    status: z.enum(['running', 'done']),
    withdrawn: count(),
    startedAt: isoTime(),
    updatedAt: isoTime().optional(),
    finishedAt: isoTime().optional(),
  })
  .meta({ id: 'NetworkWithdrawal' });

export const networkMembershipSchema = z
  .object({
    enabled: z.boolean(),
    /** When it was last switched; absent when it never was (off). */
    changedAt: isoTime().optional(),
    /** Present once the merchant has left: the withdrawal of its contributions and how far it is. */
    withdrawal: withdrawalProgressSchema.optional(),
  })
  .meta({ id: 'NetworkMembership' });

export const networkMembershipRequestSchema = z.strictObject({ enabled: z.boolean() });

export type NetworkMembershipView = z.infer<typeof networkMembershipSchema>;

export type WithdrawalProgress = z.infer<typeof withdrawalProgressSchema>;
