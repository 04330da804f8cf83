import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Real containers need podman and their own setup (npm run test:containers, test:cri); cgroup v2
    // needs its guest (npm run test:cgroup2); what loads the machine runs alone, after this tier
    // (npm run test:load).
    exclude: [...configDefaults.exclude, 'test/containers/**', 'test/cri/**', 'test/cgroup2/**', 'test/load/**',
      'test/shipping/**'],
    // SIGKILLs, by pid, every process a test started: test/support/processes.ts. A unit test loads
    // no addon and starts no process: test/support/unit-tier.ts.
    setupFiles: ['test/support/cleanup.ts', 'test/support/unit-tier.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Process tests measure real timing on a 2-core machine: two files at a time at most.
    maxWorkers: 2,
    // No retries: a flaky test is a bug to find. A test whose timing truly depends on a noisy
    // machine says so beside it, with { retry: 1 } of its own.
    pool: 'forks',
  },
});
