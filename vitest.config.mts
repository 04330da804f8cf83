import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Real containers need podman and their own setup: npm run test:containers.
    exclude: [...configDefaults.exclude, 'test/containers/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Process tests measure real timing on a 2-core machine: two files at a time at most.
    maxWorkers: 2,
    // Other tenants make these machines noisy: a timing-bound test gets one more try. The
    // report marks every retried test, so a flaky one is still seen and looked into.
    retry: 1,
    pool: 'forks',
  },
});
