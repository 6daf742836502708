import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'web/**/*.test.ts'],
    globalSetup: ['src/test/global-setup.ts', 'web/e2e/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    // Test files share their worker's modules (each still builds and closes its own app): importing
    // the service once per worker rather than once per file saves minutes of every run.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The ten slowest files close every run's output: a file that grows slow is seen the day it does.
    reporters: ['default', './src/test/slowest-files-reporter.ts'],
  },
});
