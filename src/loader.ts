// The `sexton` command (dist/sexton.js): runs the init, dist/init.js, compiled from the V8 code
// cache the build trained on it (dist/init.cache: the bytecode of every function a start and a
// stop run). Node would compile the 100 kB bundle at each start and each function of the stop
// sequence on its first call: 3 ms of every container start and 1 ms of every stop. Without a
// cache for this init and this Node, V8 compiles as usual.
import { readFileSync, statSync } from 'node:fs';
import { Script } from 'node:vm';

const INIT = `${__dirname}/init.js`;
/** What scripts/code-cache-train.cjs finds the compiled init under, to write its cache. */
const INIT_SCRIPT = Symbol.for('sexton.init-script');

/**
 * A cache's first two lines: the init's id line (written by the build) and the Node that made
 * the cache. V8's own check is not enough: arm64's V8 took a cache made on x64 by the same
 * Node version, and crashed. The binary's size tells builds of one version apart (glibc, musl).
 */
function cacheHead(source: string): string | undefined {
  let size: number;
  try {
    size = statSync(process.execPath).size;
  } catch {
    return undefined;  // no way to tell this Node from another
  }
  return `${source.slice(0, source.indexOf('\n') + 1)}// node ${process.version} ${process.arch} ${size}\n`;
}

function cacheFor(head: string | undefined): Buffer | undefined {
  if (!head?.startsWith('// sexton init ')) return undefined;
  let cache: Buffer;
  try {
    cache = readFileSync(`${__dirname}/init.cache`);
  } catch {
    return undefined;
  }
  return cache.toString('latin1', 0, head.length) === head ? cache.subarray(head.length) : undefined;
}

const wrapped = `(function (exports, require, module, __filename, __dirname) {${readFileSync(INIT, 'utf8')}\n})`;
const source = wrapped.slice(wrapped.indexOf('{') + 1);
const head = cacheHead(source);
const script = new Script(wrapped, { filename: INIT, cachedData: cacheFor(head) });
(globalThis as Record<symbol, unknown>)[INIT_SCRIPT] = { script, wrapped, head };
script.runInThisContext()(exports, require, module, INIT, __dirname);
