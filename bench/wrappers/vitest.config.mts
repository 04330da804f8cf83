// `npm run bench:wrappers`: the wrapper matrix under every init (test/support/wrapper-matrix.ts).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['bench/wrappers/*.measure.ts'],
    setupFiles: ['test/support/cleanup.ts'],
    testTimeout: 600_000,
    pool: 'forks',
  },
});
