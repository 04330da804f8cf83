// Which V8 code cache the init may run from (src/loader.ts). V8's own check is not enough: the
// arm64 node v20.20.2 took the cache the x64 one made, and crashed; and V8 takes damaged bytes
// too (no checksum outside debug builds) and dies in its deserializer. So a cache starts with a
// head: the init's id line (written by scripts/bundle.mjs from its content), the node binary
// that trained it, then the CRC-32 and length of the bytes after it. Only the same init on the
// same binary, with bytes that match their CRC, gets them.

/** The node binary: its release, its architecture, and its size (glibc and musl builds differ). */
export interface NodeBinary {
  version: string;
  arch: string;
  size: number;
}

export type Crc32 = (data: Uint8Array) => number;

/** What the training run (src/code-cache-train.ts) finds the init the loader compiled under. */
export const INIT_SCRIPT = Symbol.for('sexton.init-script');

export interface CompiledInit {
  script: import('node:vm').Script;
  wrapped: string;
  head: string | undefined;
}

const INIT_ID = '// sexton init ';
const CHECK_LINE = /^\/\/ crc32 (\d+) length (\d+)\n/;

/** What a cache for `source` (dist/init.js) on `node` starts with; undefined without an id line. */
export function cacheHead(source: string, node: NodeBinary): string | undefined {
  const idLine = source.slice(0, source.indexOf('\n') + 1);
  if (!idLine.startsWith(INIT_ID)) return undefined;
  return `${idLine}// node ${node.version} ${node.arch} ${node.size}\n`;
}

/** The cache file's bytes: the head, the check line, V8's bytes. */
export function sealCache(head: string, data: Buffer, crc32: Crc32): Buffer {
  return Buffer.concat([Buffer.from(`${head}// crc32 ${crc32(data)} length ${data.length}\n`, 'latin1'), data]);
}

/** What V8 may be given: V8's bytes, if the cache starts with exactly `head` and they are whole. */
export function cachedDataFor(cache: Buffer | undefined, head: string | undefined, crc32: Crc32 | undefined): Buffer | undefined {
  if (cache === undefined || head === undefined || crc32 === undefined || cache.length <= head.length) return undefined;
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
  try {
    const zlib = (process as unknown as { binding(name: string): { crc32?: (data: Uint8Array, value: number) => number } }).binding('zlib');
    const crc32 = zlib.crc32;
    return typeof crc32 === 'function' ? (data) => crc32(data, 0) : undefined;
  } catch {
    return undefined;
  }
}
