// Which code cache the loader gives V8, without V8: only one made from this very init by this
// very node binary. (The arm64 node took the x64 node's cache, and crashed: V8 checks its own
// version, not the machine.)
import { describe, expect, test } from 'vitest';
import { cachedDataFor, cacheHead, NodeBinary } from '../../src/code-cache';

const node: NodeBinary = { version: 'v20.20.2', arch: 'x64', size: 98932688 };
const init = '// sexton init 3d75bb4529ca40b1ca49ec5b\n"use strict";\nmain();\n';
const bytecode = Buffer.from([0xc0, 0xde, 1, 2, 3]);
const cacheOf = (head: string | undefined) => Buffer.concat([Buffer.from(head as string, 'latin1'), bytecode]);

describe('cacheHead', () => {
  test("is the init's id line, then the node binary", () => {
    expect(cacheHead(init, node)).toBe('// sexton init 3d75bb4529ca40b1ca49ec5b\n// node v20.20.2 x64 98932688\n');
  });

  test('an init without its id line (not built by scripts/bundle.mjs) has no head, so no cache', () => {
    expect(cacheHead('"use strict";\nmain();\n', node)).toBeUndefined();
    expect(cachedDataFor(cacheOf(cacheHead(init, node)), cacheHead('"use strict";\n', node))).toBeUndefined();
  });
});

describe('cachedDataFor', () => {
  test('the same init on the same node binary gets the bytes after the head', () => {
    const head = cacheHead(init, node);
    expect(cachedDataFor(cacheOf(head), head)).toEqual(bytecode);
  });

  test.each([
    ['another architecture', { ...node, arch: 'arm64' }],
    ['another release', { ...node, version: 'v20.20.1' }],
    ['another build of the release (musl)', { ...node, size: 101234567 }],
  ])('a cache trained on %s is never given to V8', (_, other) => {
    expect(cachedDataFor(cacheOf(cacheHead(init, other)), cacheHead(init, node))).toBeUndefined();
  });

  test("another build of the init (a stale cache) is never given to V8", () => {
    const rebuilt = init.replace('3d75bb4529ca40b1ca49ec5b', '0123456789abcdef01234567');
    expect(cachedDataFor(cacheOf(cacheHead(init, node)), cacheHead(rebuilt, node))).toBeUndefined();
  });

  test('no cache, an empty one, or one that is only a head: nothing', () => {
    const head = cacheHead(init, node);
    expect(cachedDataFor(undefined, head)).toBeUndefined();
    expect(cachedDataFor(Buffer.alloc(0), head)).toBeUndefined();
    expect(cachedDataFor(Buffer.from(head as string, 'latin1'), head)).toBeUndefined();
  });
});
