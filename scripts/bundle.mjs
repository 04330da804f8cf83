// Bundles the init into one CommonJS file with no runtime dependencies: on Node separate
// modules and ESM each cost milliseconds of startup that PID 1 pays on every container start.
// The init is dist/init.js, run by the `sexton` command dist/sexton.js (src/boot/loader.ts) from the
// code cache `sexton code-cache` trains (src/boot/code-cache-train.ts).
// The harness (library and `sexton harness`) and its workload program are bundles of their own,
// loaded only when used, and so is the node-side scanner (`sexton scan`, dist/scan.js); the
// package's main entry (src/index.ts) loads the harness bundle rather than a copy of it. Writes
// the notices for every package bundled (scripts/notices.mjs).
import { build } from 'esbuild';
import { chmodSync, readFileSync, rmSync } from 'node:fs';
import { writeNotices } from './notices.mjs';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const common = { bundle: true, platform: 'node', format: 'cjs', target: 'node22', logLevel: 'warning', metafile: true };
const define = { SEXTON_VERSION: JSON.stringify(version) };

/**
 * dist/sexton.js is a shell script and a JavaScript file at once. Node reads NODE_OPTIONS before
 * any JavaScript runs (a missing --require ends it with a stack, a flag it lacks with status 9, a
 * preload runs in PID 1), so the shell moves it aside first, into SEXTON_APP_NODE_OPTIONS (unless
 * that is set already: then it wins, as documented), and execs node on the same file, same pid.
 * sh sees `':'` (a no-op) and then its commands; JavaScript sees a string and a comment.
 * Costs one sh exec, ~1.5 times a bare exec (docs/operations.md); `node dist/sexton.js` skips it.
 * `sexton probe` and `sexton status` start no Node at all: sh execs their native executables,
 * linked beside this file by `sexton code-cache` (through a link to it, readlink finds them),
 * unless the name is a personality's, whose words are its child's command.
 */
const NATIVE_TOOLS = `case "\${0##*/}" in tini|dumb-init) ;; *) case "$1" in probe|status) t="\${0%/*}/sexton-$1"; [ -x "$t" ] || { t=$(readlink -f "$0") && t="\${t%/*}/sexton-$1"; }; [ -x "$t" ] && shift && exec "$t" "$@";; esac;; esac`;
const LAUNCHER = [
  '#!/bin/sh',
  `':' //; ${NATIVE_TOOLS}; [ -z "\${NODE_OPTIONS+set}" ] || { [ -n "\${SEXTON_APP_NODE_OPTIONS+set}" ] || export SEXTON_APP_NODE_OPTIONS="$NODE_OPTIONS"; unset NODE_OPTIONS; }; exec node "$0" "$@"`,
].join('\n');

/** index.ts re-exports the harness from its own bundle, dist/harness.js. */
const harnessBundle = {
  name: 'harness-bundle',
  setup(plugin) {
    plugin.onResolve({ filter: /^\.\/harness\/index$/ }, () => ({ path: './harness.js', external: true }));
  },
};

const results = await Promise.all([
  build({ ...common, entryPoints: ['src/boot/bin.ts'], outfile: 'dist/init.js', define }),
  build({ ...common, entryPoints: ['src/boot/loader.ts'], outfile: 'dist/sexton.js', banner: { js: LAUNCHER } }),
  build({ ...common, entryPoints: ['src/index.ts'], outfile: 'dist/index.js', define, plugins: [harnessBundle] }),
  build({ ...common, entryPoints: ['src/harness/index.ts'], outfile: 'dist/harness.js' }),
  build({ ...common, entryPoints: ['src/harness/workload.ts'], outfile: 'dist/workload.js' }),
  build({ ...common, entryPoints: ['src/scan/cli.ts'], outfile: 'dist/scan.js' }),
  build({ ...common, entryPoints: ['src/boot/code-cache-train.ts'], outfile: 'dist/code-cache.js' }),
]);
rmSync('dist/init.cache', { force: true });  // another build's; `sexton code-cache` makes this one's
writeNotices(results.flatMap((result) => Object.keys(result.metafile.inputs)), 'dist/THIRD-PARTY-NOTICES.md');
// Executable as npm's bin link makes it, so a link named tini or dumb-init to it runs as that tool.
chmodSync('dist/sexton.js', 0o755);
