// Which code cache the loader gives V8, without V8: only one made from this very init by this
// very node binary, whole. (V8 checks its own version and the source's length, no more: the
// arm64 node took the x64 node's cache and crashed; an init edited in place ran its old
// bytecode; and V8 crashes on damaged bytes.)
import { crc32 } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { cachedDataFor, cacheHead, NodeBinary, sealCache } from '../../../src/boot/code-cache';

const node: NodeBinary = { version: 'v26.12.1', arch: 'x64', size: 150319168 };
const init = '"use strict";\nmain();\n';
const bytecode = Buffer.from([0xc0, 0xde, 1, 2, 3]);
const head = cacheHead(init, node, undefined, crc32);
const cache = sealCache(head, bytecode, crc32);

describe('cacheHead', () => {
  test("is the CRC-32 of the init's source, then the node binary, then the NODE_OPTIONS it runs under", () => {
    expect(head).toBe(`// sexton init crc32 ${crc32(init)}\n// node v26.12.1 x64 150319168\n// NODE_OPTIONS ""\n`);
    expect(cacheHead(init, node, '--max-old-space-size=256', crc32).split('\n')[2]).toBe('// NODE_OPTIONS "--max-old-space-size=256"');
  });
});

describe('cachedDataFor', () => {
  test('the same init on the same node binary gets the bytes after the head and check line', () => {
    expect(cachedDataFor(cache, head, crc32)).toEqual(bytecode);
  });

  test.each([
    ['another architecture', { ...node, arch: 'arm64' }],
    ['another release', { ...node, version: 'v26.12.0' }],
    ['another build of the release (musl)', { ...node, size: 101234567 }],
  ])('a cache trained on %s is never given to V8', (_, other) => {
    expect(cachedDataFor(sealCache(cacheHead(init, other, undefined, crc32), bytecode, crc32), head, crc32)).toBeUndefined();
  });

  // V8's own check hashes only the flags it holds to change code, a set that moves by release:
  // Node 24 and 26 take a cache made without --max-old-space-size. sexton's check is exact.
  test('a cache trained under other NODE_OPTIONS is never given to V8, whatever V8 would say', () => {
    const underFlags = sealCache(cacheHead(init, node, '--max-old-space-size=256', crc32), bytecode, crc32);
    expect(cachedDataFor(underFlags, head, crc32)).toBeUndefined();
    expect(cachedDataFor(cache, cacheHead(init, node, '--max-old-space-size=256', crc32), crc32)).toBeUndefined();
  });

  test('another init, even of the same length (edited in place, or another build), gets nothing', () => {
    const edited = init.replace('main', 'MAIN');
    expect(edited.length).toBe(init.length);
    expect(cachedDataFor(cache, cacheHead(edited, node, undefined, crc32), crc32)).toBeUndefined();
  });

  test('no cache, an empty one, or one that is only a head: nothing', () => {
    expect(cachedDataFor(undefined, head, crc32)).toBeUndefined();
    expect(cachedDataFor(Buffer.alloc(0), head, crc32)).toBeUndefined();
    expect(cachedDataFor(Buffer.from(head, 'latin1'), head, crc32)).toBeUndefined();
  });

  test('damaged bytes (one bit), a cut-off cache or a cache without its check line: nothing', () => {
    const flipped = Buffer.from(cache);
    flipped[flipped.length - 2] ^= 1;
    expect(cachedDataFor(flipped, head, crc32)).toBeUndefined();
    expect(cachedDataFor(cache.subarray(0, cache.length - 1), head, crc32)).toBeUndefined();
    expect(cachedDataFor(Buffer.concat([Buffer.from(head, 'latin1'), bytecode]), head, crc32)).toBeUndefined();
  });
});
