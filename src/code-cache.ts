// Which V8 code cache the init may run from (src/loader.ts). V8's own check is not enough: the
// arm64 node v20.20.2 took the cache the x64 one made, and crashed. So a cache starts with a
// head: the init's id line (written by scripts/bundle.mjs from its content) and the node binary
// that trained it; only the same init on the same binary gets the bytes after it.

/** The node binary: its release, its architecture, and its size (glibc and musl builds differ). */
export interface NodeBinary {
  version: string;
  arch: string;
  size: number;
}

const INIT_ID = '// sexton init ';

/** The head a cache for `source` (dist/init.js) on `node` starts with; undefined without an id line. */
export function cacheHead(source: string, node: NodeBinary): string | undefined {
  const idLine = source.slice(0, source.indexOf('\n') + 1);
  if (!idLine.startsWith(INIT_ID)) return undefined;
  return `${idLine}// node ${node.version} ${node.arch} ${node.size}\n`;
}

/** What V8 may be given: the bytes after the head, if the cache starts with exactly that head. */
export function cachedDataFor(cache: Buffer | undefined, head: string | undefined): Buffer | undefined {
  if (cache === undefined || head === undefined || cache.length <= head.length) return undefined;
  return cache.toString('latin1', 0, head.length) === head ? cache.subarray(head.length) : undefined;
}
