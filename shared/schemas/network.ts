import * as z from 'zod';
import { isoTime } from './fields.ts';

/**
 * The merchant's membership of the opt-in network (docs/network.md): contributing its confirmed
 * abuse and first sightings, and reading other members' reputation, go together.
 */
export const networkMembershipSchema = z
  .object({
    enabled: z.boolean(),
    /** When it was last switched; absent when it never was (off). */
    changedAt: isoTime().optional(),
  })
  .meta({ id: 'NetworkMembership' });

export const networkMembershipRequestSchema = z.strictObject({ enabled: z.boolean() });

export type NetworkMembershipView = z.infer<typeof networkMembershipSchema>;
