// `sexton code-cache` (dist/code-cache.js, loaded on demand): trains dist/init.cache for the node
// binary that runs it (src/boot/loader.ts, src/boot/code-cache.ts). It runs sexton once through a start,
// its exporters and a stop by TERM, with this file preloaded: there, when the init calls the
// addon's exit, the bytecode of every function compiled so far is written out, if this V8 takes
// it back. npm runs it at install; an image that installs with --ignore-scripts runs it itself.
// It first links the native `sexton probe` and `sexton status` beside the `sexton` command.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Script } from 'node:vm';
import { cacheHead, INIT_SCRIPT, nodeCrc32, sealCache, thisNode, wrapInit } from './code-cache';
import { CODE_CACHE_EXIT } from '../config/exit-codes';
import { nodeOptionsOfInit } from '../config/node-options';
import { quote } from '../config/quote';
import { linkNativeTools } from './native-tool-links';

const CACHE = path.join(__dirname, 'init.cache');
/** Set in the training run's environment: where its preload writes the cache. */
const OUT_VARIABLE = 'SEXTON_CODE_CACHE_OUT';
/**
 * The training run's child: it sends sexton the TERM itself, once it has run this long, which
 * is past the exporters' start (100 ms after the spawn), so that their code is in the cache too.
 * Timed by the child, not by this tool: under qemu (an arm64 image built on x64) node alone
 * takes seconds to start.
 */
const CHILD = `setTimeout(() => process.kill(process.ppid, 'SIGTERM'), 400); setInterval(() => {}, 1000);`;
/** A backstop, not a schedule: the run is over in well under a second where node is native. */
const RUN_TIMEOUT_MS = 120_000;
export const CODE_CACHE_USAGE = `Usage: sexton code-cache

Compiles sexton's init with the node that runs this command and saves V8's bytecode next to it
(${CACHE}), so that each start of sexton on this node binary skips ~3 ms of compiling; and
links the native \`sexton probe\` and \`sexton status\` for this machine beside the command.
Run it where the node that will run sexton is, e.g. in the image, after installing sexton,
with the NODE_OPTIONS sexton will start with: V8 takes no cache made under other V8 flags
(options that load code into sexton, such as --require, are left out: sexton sheds them).
Exit status: 0 saved, or this node cannot use a cache (Node before 20.15: the line says so);
1 not saved (the line says why); 2 bad usage.`;

/** In the training run: saves the cache when the init leaves (it always leaves by the addon's exit). */
function trainOnExit(out: string): void {
  const Module = require('node:module') as { _load(request: string, ...rest: unknown[]): unknown };
  const load = Module._load;
  Module._load = function (request: string, ...rest: unknown[]) {
    const loaded = load.call(this, request, ...rest) as { exit?: (code: number) => void; __trains?: boolean };
    // build/Release/sexton.node, or a prebuild: prebuilds/linux-x64/sexton.glibc.node
    if (!request.endsWith('.node') || loaded.__trains || typeof loaded.exit !== 'function') return loaded;
    const exit = loaded.exit;
    loaded.exit = (code: number) => {
      const script = (globalThis as Record<symbol, Script | undefined>)[INIT_SCRIPT];
      const crc32 = nodeCrc32();
      const node = thisNode();
      if (script !== undefined && crc32 !== undefined && node !== undefined) {
        const data = script.createCachedData();
        const source = readFileSync(path.join(__dirname, 'init.js'), 'utf8');
        // V8 says whether it would take these bytes back, without running them; the head says
        // under which NODE_OPTIONS they were made (this run's: the init's, src/config/node-options.ts).
        const head = cacheHead(source, node, process.env.NODE_OPTIONS, crc32);
        const taken = !new Script(wrapInit(source), { filename: 'init.js', cachedData: data }).cachedDataRejected;
        if (taken) writeFileSync(out, sealCache(head, data, crc32));
      }
      exit(code);
    };
    loaded.__trains = true;
    return loaded;
  };
}

const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code ?? String(error);

function fail(why: string): number {
  process.stderr.write(`sexton code-cache: ${why}; sexton runs without it (compiling at each start)\n`);
  return CODE_CACHE_EXIT.failed;
}

/** After the training run: keeps the cache its preload wrote, or says why there is none. */
function keep(out: string, nodeOptions: string | undefined, code: number | null, signal: string | null,
  stderr: string): number {
  try {
    if (code !== 143) {
      const last = stderr.trimEnd().split('\n').at(-1)?.slice(0, 200);
      return fail(
        `the training run of sexton ended with ${code ?? signal}, not 143 (its child ended by ` +
          `TERM)${last ? `: ${JSON.stringify(last)}` : ''}`);
    }
    if (!existsSync(out)) return fail('the training run saved no cache (this V8 would not take its own back)');
    renameSync(out, CACHE);
    const under = nodeOptions === undefined ? '' : ` under NODE_OPTIONS=${quote(nodeOptions)}`;
    process.stdout.write(`sexton code-cache: saved ${CACHE} for node ${process.version} ${process.arch}${under}\n`);
    return 0;
  } catch (error) {
    return fail(`cannot save ${CACHE}: ${errorCode(error)}`);
  } finally {
    rmSync(out, { force: true });
  }
}

export function codeCacheMain(argv: string[]): Promise<number> {
  if (argv[0] === '--help' || argv[0] === '-h') {
    process.stdout.write(`${CODE_CACHE_USAGE}\n`);
    return Promise.resolve(0);
  }
  if (argv.length > 0) {
    process.stderr.write(`sexton code-cache: takes no arguments\n${CODE_CACHE_USAGE}\n`);
    return Promise.resolve(CODE_CACHE_EXIT.usage);
  }
  // A link that cannot be made leaves those two on Node's path: a line, not a failure.
  for (const error of linkNativeTools()) process.stderr.write(`sexton code-cache: ${error}\n`);
  if (nodeCrc32() === undefined) {
    process.stderr.write(
      `sexton code-cache: node ${process.version} has no CRC-32 to check a cache with (20.15 and later have); sexton ` +
        `compiles at each start\n`);
    return Promise.resolve(0);
  }
  const out = `${CACHE}.${process.pid}.tmp`;
  let scratch: string;
  try {
    // A training run killed with its tool (SIGKILL gives no chance to clean up) leaves its file.
    for (const name of readdirSync(__dirname)) {
      if (/^init\.cache\.\d+\.tmp$/.test(name)) rmSync(path.join(__dirname, name), { force: true });
    }
    scratch = mkdtempSync(path.join(os.tmpdir(), 'sexton-code-cache-'));
  } catch (error) {
    return Promise.resolve(fail(`cannot prepare the training run: ${errorCode(error)}`));
  }
  // V8 refuses a cache made under other V8 flags (an app's --max-old-space-size is enough) and
  // compiles as if there were none: the training run gets the NODE_OPTIONS the init will run with.
  const nodeOptions = nodeOptionsOfInit(process.env.NODE_OPTIONS);
  const run = spawn(process.execPath, [
    '--require', __filename, path.join(__dirname, 'sexton.js'),
    // Ends with this tool, however it ends (npm's timeout, Ctrl-C).
    '--pdeath', 'TERM',
    '--status-socket', `@sexton-code-cache.${process.pid}`, '--stats-file', path.join(scratch, 'stats.json'),
    // The child is this node: an install's PATH may have nothing else (no sleep).
    '--', process.execPath, '-e', CHILD,
  ], { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin', [OUT_VARIABLE]: out,
    NODE_OPTIONS: nodeOptions } });
  let stderr = '';
  run.stderr.on('data', (chunk) => (stderr += chunk));
  const giveUp = setTimeout(() => run.kill('SIGKILL'), RUN_TIMEOUT_MS);
  return new Promise((resolve) => {
    const done = (result: number) => {
      clearTimeout(giveUp);
      rmSync(scratch, { recursive: true, force: true });
      resolve(result);
    };
    run.on('close', (code, signal) => done(keep(out, nodeOptions, code, signal, stderr)));
    run.on('error', (error) => done(fail(`cannot start node: ${error.message}`)));
  });
}

const trainingOut = process.env[OUT_VARIABLE];
if (trainingOut !== undefined) trainOnExit(trainingOut);
