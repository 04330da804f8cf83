// The musl prebuilds (node:20-alpine and other musl images, x64 and arm64). No musl Node can be
// installed on this Debian machine, so they are checked statically against Debian's musl
// (packages musl and musl:arm64), the way musl's dynamic loader will judge them: the right
// machine, no library but libc, and every symbol they need either Node-API (from node itself)
// or exported by musl's libc. A glibc-only name left in would fail dlopen with "symbol not
// found"; native/musl/compat.c supplies the few that the static libstdc++/libgcc reference.
import { execa } from 'execa';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { libcOf } from '../src/native';
import { beforeAll, describe, expect, test } from 'vitest';
import { buildPrebuilds, dynamicSymbols, ELF_MACHINE, elfMachine, loadRequirements, PLATFORMS, prebuildPath } from './support/shipping';

const { symbols: napiVersions } = require('node-api-headers') as {
  symbols: Record<string, { js_native_api_symbols: string[]; node_api_symbols: string[] }>;
};

/** The package's Node-API version (binary.napi_versions): what node provides to the addon. */
const NAPI_VERSION = 8;
const NODE_API = new Set(
  Array.from({ length: NAPI_VERSION }, (_, i) => napiVersions[`v${i + 1}`]).flatMap((v) => [...v.js_native_api_symbols, ...v.node_api_symbols]),
);

/**
 * Weak references that may stay unresolved (null), each for a reason: GCC's crtbegin hooks for
 * libitm (transactional memory, unused), and the vtable slot libstdc++ fills for a call to a pure
 * virtual function, which only a bug reaches.
 */
const MAY_BE_NULL = ['_ITM_deregisterTMCloneTable', '_ITM_registerTMCloneTable', '__cxa_pure_virtual'];

const TRIPLET = { x64: 'x86_64-linux-musl', arm64: 'aarch64-linux-musl' } as const;
const MUSL_ARCH = { x64: 'x86_64', arm64: 'aarch64' } as const;

describe('prebuilt musl addons (npm run build:prebuilds), checked against Debian\'s musl', () => {
  beforeAll(buildPrebuilds, 180_000);

  for (const { arch } of PLATFORMS.filter((p) => p.libc === 'musl')) {
    const file = prebuildPath(arch, 'musl');
    const muslLibc = `/lib/${TRIPLET[arch]}/libc.so`;

    test(`linux-${arch}: an ${ELF_MACHINE[arch]} object that needs only musl's libc`, async () => {
      expect(await elfMachine(file)).toBe(ELF_MACHINE[arch]);
      const { needed, versions } = await loadRequirements(file);
      // musl's loader takes libc.so (and Alpine's libc.musl-ARCH.so.1) as itself.
      expect(needed.filter((lib) => lib !== 'libc.so' && lib !== `libc.musl-${MUSL_ARCH[arch]}.so.1`)).toEqual([]);
      expect(needed.length).toBe(1);
      // Symbol versions are glibc's: a versioned reference means glibc code was linked in.
      expect(versions).toEqual({});
    });

    test(`linux-${arch}: every symbol it needs is Node-API or exported by musl's libc`, async () => {
      expect(existsSync(muslLibc), `${muslLibc}: install Debian's musl for ${arch} (.ci/setup)`).toBe(true);
      const exported = new Set((await dynamicSymbols(muslLibc, 'defined')).map((s) => s.name));
      expect(exported.size, 'musl exports its libc functions').toBeGreaterThan(1000);
      const needed = await dynamicSymbols(file, 'undefined');
      const napi = needed.filter((s) => NODE_API.has(s.name));
      expect(napi.length, 'the addon registers itself through Node-API').toBeGreaterThan(20);
      const missing = needed.filter((s) => !NODE_API.has(s.name) && !exported.has(s.name) && !(s.weak && MAY_BE_NULL.includes(s.name)));
      expect(missing.map((s) => `${s.name}${s.weak ? ' (weak)' : ''}`)).toEqual([]);
      // libstdc++ is linked in, and decides from this weak reference that threads are on.
      expect(needed.map((s) => s.name)).not.toContain('__pthread_key_create');
    });
  }
});

test("sexton picks the prebuild for the C library node itself runs on (read from node's ELF interpreter)", async () => {
  // A real musl program: Debian's musl-gcc links it to run with musl's loader, as Alpine's node is.
  const scratch = mkdtempSync(path.join(tmpdir(), 'sexton-musl-'));
  try {
    writeFileSync(path.join(scratch, 'hello.c'), 'int main(void) { return 0; }\n');
    await execa('musl-gcc', ['-o', 'hello', 'hello.c'], { cwd: scratch, timeout: 60_000 });
    await execa(path.join(scratch, 'hello'));  // it runs, with /lib/ld-musl-x86_64.so.1
    expect(libcOf(path.join(scratch, 'hello'))).toBe('musl');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  expect(libcOf(process.execPath)).toBe('glibc');
  expect(libcOf()).toBe('glibc');  // /proc/self/exe: this node
});
