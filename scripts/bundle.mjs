// Bundles the init into one CommonJS file with no runtime dependencies: on Node 20 separate
// modules and ESM each cost milliseconds of startup that PID 1 pays on every container start.
// The harness (library and `sexton harness`) and its workload program are bundles of their own,
// loaded only when used.
import { build } from 'esbuild';
import { chmodSync, readFileSync } from 'node:fs';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const common = { bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'warning' };

await Promise.all([
  build({
    ...common,
    entryPoints: ['src/cli.ts'],
    outfile: 'dist/sexton.js',
    banner: { js: '#!/usr/bin/env node' },
    define: { SEXTON_VERSION: JSON.stringify(version) },
  }),
  build({ ...common, entryPoints: ['src/harness/index.ts'], outfile: 'dist/harness.js' }),
  build({ ...common, entryPoints: ['src/harness/workload.ts'], outfile: 'dist/workload.js' }),
]);
// Executable as npm's bin link makes it, so a link named tini or dumb-init to it runs as that tool.
chmodSync('dist/sexton.js', 0o755);
