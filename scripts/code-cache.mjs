// Trains dist/init.cache (see src/loader.ts): runs the built sexton once through a start, its
// exporters and a stop by TERM, and saves the bytecode V8 compiled on the way. Needs the addon
// built (npm run build:native); the cache serves only the node that ran this script.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cache = path.join(root, 'dist', 'init.cache');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'sexton-code-cache-'));
/** Past the exporters' start (100 ms after the spawn), so that their code is in the cache too. */
const TERM_AFTER_MS = 400;

const child = spawn(process.execPath, [
  '--require', path.join(root, 'scripts', 'code-cache-train.cjs'), path.join(root, 'dist', 'sexton.js'),
  '--status-socket', `@sexton-code-cache.${process.pid}`, '--stats-file', path.join(scratch, 'stats.json'),
  '--', 'sleep', '10',
], { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env.PATH } });
let stderr = '';
child.stderr.on('data', (chunk) => (stderr += chunk));
const timer = setTimeout(() => child.kill('SIGTERM'), TERM_AFTER_MS);
child.on('exit', (code, signal) => {
  clearTimeout(timer);
  rmSync(scratch, { recursive: true, force: true });
  if (code !== 143 || !existsSync(cache)) fail(`the training run of sexton ended with ${code ?? signal} and wrote no cache\n${stderr}`);
});

function fail(message) {
  rmSync(cache, { force: true });
  process.stderr.write(`code-cache: ${message}\n`);
  process.exit(1);
}
