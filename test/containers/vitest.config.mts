// The container suite (`npm run test:containers`): real OCI containers under podman + runc.
// Not part of the default `vitest run` (its include is test/*.test.ts and the like); it needs
// root, podman and runc, and builds images in its global setup.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/containers/**/*.test.ts'],
    globalSetup: ['test/containers/setup.ts'],
    setupFiles: ['test/support/cleanup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Stop timings are measured: one file at a time.
    fileParallelism: false,
    pool: 'forks',
  },
});
