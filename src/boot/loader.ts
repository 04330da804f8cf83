// The `sexton` command (dist/sexton.js): runs the init, dist/init.js, compiled from the V8 code
// cache that `sexton code-cache` trained on it with this node binary (dist/init.cache: the
// bytecode of every function a start and a stop run). Node would compile the 100 kB bundle at
// each start and each function of the stop sequence on its first call: 3 ms of every container
// start and 1 ms of every stop. Without a whole cache for this init and this node binary
// (src/boot/code-cache.ts), V8 compiles as usual.
import { readFileSync, writeSync } from 'node:fs';
import { Script } from 'node:vm';
import { cachedDataFor, cacheHead, INIT_SCRIPT, nodeCrc32, thisNode, wrapInit } from './code-cache';

const INIT = `${__dirname}/init.js`;
import { EXIT } from '../config/exit-codes';

function read(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

let source: string;
try {
  source = readFileSync(INIT, 'utf8');
} catch (error) {
  writeSync(2,
    `sexton: cannot read ${INIT} (${(error as NodeJS.ErrnoException).code ?? error}); install sexton again\n`);
  process.exit(EXIT.startFailure);
}
const cache = read(`${__dirname}/init.cache`);
const crc32 = cache === undefined ? undefined : nodeCrc32();
const node = crc32 === undefined ? undefined : thisNode();
const head = node === undefined || crc32 === undefined
  ? undefined
  : cacheHead(source, node, process.env.NODE_OPTIONS, crc32);
const cachedData = crc32 === undefined ? undefined : cachedDataFor(cache, head, crc32);
const script = new Script(wrapInit(source), { filename: INIT, cachedData });
(globalThis as Record<symbol, Script>)[INIT_SCRIPT] = script;
script.runInThisContext()(exports, require, module, INIT, __dirname);
