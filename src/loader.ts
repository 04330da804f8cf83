// The `sexton` command (dist/sexton.js): runs the init, dist/init.js, compiled from the V8 code
// cache the build trained on it (dist/init.cache: the bytecode of every function a start and a
// stop run). Node would compile the 100 kB bundle at each start and each function of the stop
// sequence on its first call: 3 ms of every container start and 1 ms of every stop. A cache
// that V8 refuses (another V8 version or other V8 flags) costs nothing: V8 compiles as usual.
import { readFileSync } from 'node:fs';
import { Script } from 'node:vm';

const INIT = `${__dirname}/init.js`;
/** What scripts/code-cache.mjs finds the compiled init under, to write its cache. */
const INIT_SCRIPT = Symbol.for('sexton.init-script');

/**
 * The cache, if it was made from this very init.js by this very Node: it starts with the init's
 * id line and the Node that trained it. (V8 checks its own version, not a Node release's
 * backported V8 patches.)
 */
function cacheFor(source: string): Buffer | undefined {
  let cache: Buffer;
  try {
    cache = readFileSync(`${__dirname}/init.cache`);
  } catch {
    return undefined;
  }
  const head = `${source.slice(0, source.indexOf('\n') + 1)}${cacheOwner()}`;
  return head.startsWith('// sexton init ') && cache.toString('latin1', 0, head.length) === head ? cache.subarray(head.length) : undefined;
}

/** The second line of a cache: which Node made it. scripts/code-cache-train.cjs writes the same. */
function cacheOwner(): string {
  return `// node ${process.version} ${process.arch}\n`;
}

const source = readFileSync(INIT, 'utf8');
const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
  filename: INIT,
  cachedData: cacheFor(source),
});
(globalThis as Record<symbol, unknown>)[INIT_SCRIPT] = script;
script.runInThisContext()(exports, require, module, INIT, __dirname);
