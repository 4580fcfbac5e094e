import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/test-env.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: two workers keep DynamoDB Local and the CDK synth from starving each other.
    maxWorkers: 2,
  },
});
