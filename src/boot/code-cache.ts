// Which V8 code cache the init may run from (src/boot/loader.ts). V8's own check is not enough: it
// compares its version, its flags and the source's length, no more. The arm64 node v20.20.2
// took the cache the x64 one made, and crashed; an init edited in place (same length) ran its
// old bytecode; and V8 takes damaged bytes too (no checksum outside debug builds) and dies in
// its deserializer. So a cache starts with a head: the CRC-32 of the init's source, the node
// binary that trained it, the NODE_OPTIONS it ran under, then the CRC-32 and length of V8's
// bytes. Only the same init on the same binary under the same NODE_OPTIONS, with bytes that match
// their CRC, gets them. The NODE_OPTIONS are sexton's check, not V8's: V8 hashes only the flags
// it holds to change code, and that set moves between releases (Node 24 and 26 take a cache made
// without --max-old-space-size, Node 22 refused it), so what sexton was trained under is what it
// runs from, on every line.
import { statSync } from 'node:fs';
import { nodeBinding } from '../platform/node-binding';

/** The node binary: its release, its architecture, and its size (glibc and musl builds differ). */
export interface NodeBinary {
  version: string;
  arch: string;
  size: number;
}

/** CRC-32 of bytes, or of a string's UTF-8. */
export type Crc32 = (data: Uint8Array | string) => number;

/** What the training run (src/boot/code-cache-train.ts) finds the init's compiled Script under. */
export const INIT_SCRIPT = Symbol.for('sexton.init-script');

/** The init's source as the loader compiles it: a CommonJS module's function. */
export function wrapInit(source: string): string {
  return `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
}

const CHECK_LINE = /^\/\/ crc32 (\d+) length (\d+)\n/;

/** The node binary running this; undefined when it cannot be told from another (no stat). */
export function thisNode(): NodeBinary | undefined {
  try {
    return { version: process.version, arch: process.arch, size: statSync(process.execPath).size };
  } catch {
    return undefined;
  }
}

/** What a cache for the init `source` on `node` under NODE_OPTIONS `nodeOptions` starts with. */
export function cacheHead(source: string, node: NodeBinary, nodeOptions: string | undefined, crc32: Crc32): string {
  const options = `// NODE_OPTIONS ${JSON.stringify(nodeOptions ?? '')}\n`;
  return `// sexton init crc32 ${crc32(source)}\n// node ${node.version} ${node.arch} ${node.size}\n${options}`;
}

/** The cache file's bytes: the head, the check line, V8's bytes. */
export function sealCache(head: string, data: Buffer, crc32: Crc32): Buffer {
  return Buffer.concat([Buffer.from(`${head}// crc32 ${crc32(data)} length ${data.length}\n`, 'latin1'), data]);
}

/** What V8 may be given: V8's bytes, if the cache starts with exactly `head` and they are whole. */
export function cachedDataFor(cache: Buffer | undefined, head: string | undefined, crc32: Crc32): Buffer | undefined {
  if (cache === undefined || head === undefined || cache.length <= head.length) return undefined;
  if (cache.toString('latin1', 0, head.length) !== head) return undefined;
  const check = CHECK_LINE.exec(cache.toString('latin1', head.length, head.length + 64));
  if (!check) return undefined;
  const data = cache.subarray(head.length + check[0].length);
  return data.length === Number(check[2]) && crc32(data) === Number(check[1]) ? data : undefined;
}

/**
 * zlib's CRC-32 from Node's own binding: 0.03 ms for the cache, where `require('zlib')` costs
 * 2-3 ms and a crypto hash 0.4. Node releases without it (before 20.15) run without the cache.
 */
export function nodeCrc32(): Crc32 | undefined {
  const crc32 = nodeBinding<{ crc32?: (data: Uint8Array | string, value: number) => number }>('zlib')?.crc32;
  return typeof crc32 === 'function' ? (data) => crc32(data, 0) : undefined;
}
