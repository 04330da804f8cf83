// The CRI tier (`npm run test:cri`): pods driven through containerd's CRI, the kubelet's own
// runtime interface. Not part of the default `vitest run`: it needs root, containerd, runc and
// podman (for the images), and starts its own containerd in its global setup.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/cri/**/*.test.ts'],
    globalSetup: ['test/cri/setup.ts'],
    setupFiles: ['test/support/cleanup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Stop timings are measured: one file at a time.
    fileParallelism: false,
    pool: 'forks',
  },
});
