import { defineConfig } from 'vitest/config';

/**
 * Suites that put volume through the service (20,000 ledger entries withdrawn, the widest events, a
 * year of history imported twice, a merchant's first week, generated hostile requests) run first,
 * one at a time, each on a table of its own that it drops: sharing two cores and DynamoDB Local with
 * the rest, their requests and everyone else's outlast the 5 s request budget and are answered 503;
 * and the run's one in-memory DynamoDB Local slows, for every table, as the run fills it.
 */
const VOLUME_SUITES = [
  'test/network-withdrawal.test.ts',
  'test/wide-events.test.ts',
  'test/history-import.test.ts',
  'test/first-day.test.ts',
  'test/fuzz.test.ts',
];

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/test-env.ts'],
    // Timeouts catch a hang, nothing else: speed is measured by `npm run bench`, never by a test.
    // The longest step is a hook that plays a merchant's first week (about 5,000 requests).
    testTimeout: 600_000,
    hookTimeout: 600_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'suites',
          include: ['test/**/*.test.ts'],
          exclude: VOLUME_SUITES,
          // Two cores: two workers keep DynamoDB Local and the CDK synth from starving each other.
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
        },
      },
      {
        extends: true,
        test: {
          name: 'volume',
          include: VOLUME_SUITES,
          maxWorkers: 1,
          // Not 0: vitest runs a one-worker project of group 0 after every other group.
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
