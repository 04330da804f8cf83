// The `sexton` command (dist/sexton.js): runs the init, dist/init.js, compiled from the V8 code
// cache that `sexton code-cache` trained on it with this node binary (dist/init.cache: the
// bytecode of every function a start and a stop run). Node would compile the 100 kB bundle at
// each start and each function of the stop sequence on its first call: 3 ms of every container
// start and 1 ms of every stop. Without a whole cache for this init and this node binary
// (src/code-cache.ts), V8 compiles as usual.
import { readFileSync, statSync } from 'node:fs';
import { Script } from 'node:vm';
import { cachedDataFor, cacheHead, CompiledInit, INIT_SCRIPT, nodeCrc32 } from './code-cache';

const INIT = `${__dirname}/init.js`;

function read(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

function headOf(source: string): string | undefined {
  try {
    return cacheHead(source, { version: process.version, arch: process.arch, size: statSync(process.execPath).size });
  } catch {
    return undefined;  // no way to tell this node from another
  }
}

const wrapped = `(function (exports, require, module, __filename, __dirname) {${readFileSync(INIT, 'utf8')}\n})`;
const head = headOf(wrapped.slice(wrapped.indexOf('{') + 1));
const cachedData = head === undefined ? undefined : cachedDataFor(read(`${__dirname}/init.cache`), head, nodeCrc32());
const script = new Script(wrapped, { filename: INIT, cachedData });
(globalThis as Record<symbol, CompiledInit>)[INIT_SCRIPT] = { script, wrapped, head };
script.runInThisContext()(exports, require, module, INIT, __dirname);
