// The musl prebuilds (node:26-alpine and other musl images, x64 and arm64). No musl Node can be
// installed on this Debian machine, so they are checked against Debian's musl (packages musl
// and musl:arm64), the way musl's dynamic loader will judge them: the right machine, no library
// but libc, every symbol they need either Node-API (from node itself) or exported by musl's
// libc; and then musl's loader itself loads each one (arm64 under qemu-user). A glibc-only name
// left in would fail dlopen with "symbol not found"; native/compat/musl/compat.c supplies the few that
// the static libstdc++/libgcc reference.
import { execa } from 'execa';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { libcOf } from '../../src/platform/libc';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Arch, buildPrebuilds, dynamicSymbols, ELF_MACHINE, elfMachine, loadRequirements, PLATFORMS, prebuildPath, QEMU_ARM64 } from '../support/shipping';

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

/**
 * A musl program that dlopens an addon with RTLD_NOW, exporting every Node-API function as a
 * stub that aborts if called: musl's own loader then resolves every relocation of the addon and
 * runs its initialisers, as it would in node on Alpine, short of registering the module.
 */
const LOAD_HOST = `#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char** argv) {
  (void)argc;
  void* addon = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!addon) { printf("dlopen failed: %s\\n", dlerror()); return 1; }
  printf("loaded; napi_register_module_v1 %s\\n", dlsym(addon, "napi_register_module_v1") ? "found" : "missing");
  return 0;
}
`;

async function buildLoadHost(dir: string, arch: Arch): Promise<string[]> {
  writeFileSync(path.join(dir, 'host.c'), LOAD_HOST);
  const stubs = [...NODE_API].map((name) => `void ${name}(void) { abort(); }`).join('\n');
  writeFileSync(path.join(dir, 'stubs.c'), `#include <stdlib.h>\n${stubs}\n`);
  const out = path.join(dir, `load-host-${arch}`);
  // Debian's musl-gcc wrappers; the arm64 one runs under qemu-user with musl's arm64 loader.
  const cc = arch === 'x64' ? 'musl-gcc' : 'aarch64-linux-musl-gcc';
  await execa(cc, ['-rdynamic', '-o', out, 'host.c', 'stubs.c'], { cwd: dir, timeout: 60_000 });
  return arch === 'x64' ? [out] : [QEMU_ARM64, out];
}

describe('prebuilt musl addons (npm run build:prebuilds), checked against Debian\'s musl', () => {
  let scratch = '';
  beforeAll(async () => {
    scratch = mkdtempSync(path.join(tmpdir(), 'sexton-musl-load-'));
    await buildPrebuilds();
  }, 180_000);
  afterAll(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

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
      // Thread-locals of the static libstdc++ must use the dynamic TLS model: musl's dlopen has
      // no static TLS space to give a library loaded late.
      const { stdout: dynamic } = await execa('readelf', ['--dynamic', file]);
      expect(dynamic).not.toMatch(/STATIC_TLS/);
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

    test(`linux-${arch}: musl's own dynamic loader loads it, every relocation resolved`, async () => {
      const [program, ...args] = await buildLoadHost(scratch, arch);
      const loaded = await execa(program, [...args, file], { timeout: 60_000, reject: false, killSignal: 'SIGKILL' });
      expect({ exitCode: loaded.exitCode, stdout: loaded.stdout }).toEqual({ exitCode: 0, stdout: 'loaded; napi_register_module_v1 found' });
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
