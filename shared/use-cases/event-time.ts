/**
 * The time an event happened, which every window, age and first/last-seen of its history is read
 * and written at: its own timestamp, or the time it was received when it carries none (signups and
 * logins may omit it; dispositions have none). A timestamp ahead of the receipt (clock skew, allowed
 * up to a day by the schemas) counts as the receipt, so no window reads the future.
 */
export function eventTime(timestamp: string | number | undefined, received: number): number {
  if (timestamp === undefined) return received;
  return Math.min(Number(timestamp), received);
}
