// Bundles the init into one CommonJS file with no runtime dependencies: on Node 20 separate
// modules and ESM each cost milliseconds of startup that PID 1 pays on every container start.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

await build({
  entryPoints: ['src/cli.ts'],
  outfile: 'dist/sexton.js',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  banner: { js: '#!/usr/bin/env node' },
  define: { SEXTON_VERSION: JSON.stringify(version) },
  logLevel: 'warning',
});
