// `npm run bench:cri`: the CRI stop path measured on the CRI tier's containerd (test/cri/setup.ts
// starts it, imports the images, and removes everything at the end).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['bench/cri/*.measure.ts'],
    globalSetup: ['test/cri/setup.ts'],
    setupFiles: ['test/support/cleanup.ts'],
    testTimeout: 600_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    pool: 'forks',
  },
});
