// The load tier (`npm run test:load`): tests that keep both cores busy for long (the shipping
// tests' compilers and emulators, the benchmark's smoke runs, the soak). They run after the PID 1
// tier, one file at a time, so that they never starve a test that measures milliseconds.
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/load/**/*.test.ts', 'test/shipping/**/*.test.ts'],
    exclude: [...configDefaults.exclude],
    setupFiles: ['test/support/cleanup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
    pool: 'forks',
  },
});
