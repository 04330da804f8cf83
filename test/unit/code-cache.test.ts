// Which code cache the loader gives V8, without V8: only one made from this very init by this
// very node binary, whole. (The arm64 node took the x64 node's cache, and crashed: V8 checks its
// own version, not the machine; and it crashes on damaged bytes.)
import { crc32 } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { cachedDataFor, cacheHead, NodeBinary, sealCache } from '../../src/code-cache';

const node: NodeBinary = { version: 'v20.20.2', arch: 'x64', size: 98932688 };
const init = '// sexton init 3d75bb4529ca40b1ca49ec5b\n"use strict";\nmain();\n';
const bytecode = Buffer.from([0xc0, 0xde, 1, 2, 3]);
const cacheOf = (head: string | undefined) => sealCache(head as string, bytecode, crc32);

describe('cacheHead', () => {
  test("is the init's id line, then the node binary", () => {
    expect(cacheHead(init, node)).toBe('// sexton init 3d75bb4529ca40b1ca49ec5b\n// node v20.20.2 x64 98932688\n');
  });

  test('an init without its id line (not built by scripts/bundle.mjs) has no head, so no cache', () => {
    expect(cacheHead('"use strict";\nmain();\n', node)).toBeUndefined();
    expect(cachedDataFor(cacheOf(cacheHead(init, node)), cacheHead('"use strict";\n', node), crc32)).toBeUndefined();
  });
});

describe('cachedDataFor', () => {
  test('the same init on the same node binary gets the bytes after the head', () => {
    const head = cacheHead(init, node);
    expect(cachedDataFor(cacheOf(head), head, crc32)).toEqual(bytecode);
  });

  test.each([
    ['another architecture', { ...node, arch: 'arm64' }],
    ['another release', { ...node, version: 'v20.20.1' }],
    ['another build of the release (musl)', { ...node, size: 101234567 }],
  ])('a cache trained on %s is never given to V8', (_, other) => {
    expect(cachedDataFor(cacheOf(cacheHead(init, other)), cacheHead(init, node), crc32)).toBeUndefined();
  });

  test("another build of the init (a stale cache) is never given to V8", () => {
    const rebuilt = init.replace('3d75bb4529ca40b1ca49ec5b', '0123456789abcdef01234567');
    expect(cachedDataFor(cacheOf(cacheHead(init, node)), cacheHead(rebuilt, node), crc32)).toBeUndefined();
  });

  test('no cache, an empty one, or one that is only a head: nothing', () => {
    const head = cacheHead(init, node);
    expect(cachedDataFor(undefined, head, crc32)).toBeUndefined();
    expect(cachedDataFor(Buffer.alloc(0), head, crc32)).toBeUndefined();
    expect(cachedDataFor(Buffer.from(head as string, 'latin1'), head, crc32)).toBeUndefined();
  });

  test('damaged bytes (one bit), a cut-off cache or a cache without its check line: nothing', () => {
    const head = cacheHead(init, node) as string;
    const cache = cacheOf(head);
    const flipped = Buffer.from(cache);
    flipped[flipped.length - 2] ^= 1;
    expect(cachedDataFor(flipped, head, crc32)).toBeUndefined();
    expect(cachedDataFor(cache.subarray(0, cache.length - 1), head, crc32)).toBeUndefined();
    expect(cachedDataFor(Buffer.concat([Buffer.from(head, 'latin1'), bytecode]), head, crc32)).toBeUndefined();
  });

  test('a node with no CRC-32 to check with gets no cache', () => {
    const head = cacheHead(init, node);
    expect(cachedDataFor(cacheOf(head), head, undefined)).toBeUndefined();
  });
});
