// npm's install step for the package, after node-gyp-build has found or compiled the addon:
// `sexton code-cache` links the native `sexton probe` and `sexton status` into dist/ and trains the init's V8 code cache with the node that installs it
// (src/boot/code-cache-train.ts). A cache only makes starts faster, so a failure is its one line and
// never a failed install. In a checkout before `npm run build` there is nothing to train yet.
const { spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');

const sexton = path.join(__dirname, '..', 'dist', 'sexton.js');
if (existsSync(path.join(__dirname, '..', 'dist', 'code-cache.js'))) {
  // Without NODE_OPTIONS, as the `sexton` command runs the init (its sh line moves them aside):
  // V8 takes no cache trained under other V8 flags.
  const { NODE_OPTIONS: _app, ...env } = process.env;
  spawnSync(process.execPath, [sexton, 'code-cache'], { stdio: 'inherit', timeout: 180_000, env });
}
