// The cgroup v2 tier's tests: run inside the v2 guest that scripts/cgroup2-guest.mjs boots
// (`npm run test:cgroup2`), not on this machine, whose memory and pids controllers are v1's.
// TCG is several times slower than the host: one file at a time, budgets sized for it.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The v2 tests, the host's tests whose cgroup code differs on v2 (they follow the hierarchy),
    // and the FUSE stuck process: on v2, the one kind of process SIGKILL cannot end that a test can make.
    include: ['test/cgroup2/**/*.test.ts', 'test/reports/pids-budget.test.ts', 'test/init/fuse-stuck.test.ts'],
    setupFiles: ['test/support/cleanup.ts'],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    pool: 'forks',
  },
});
