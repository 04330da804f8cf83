// The prebuilt glibc addons must load wherever Node 22, 24 and 26 run: glibc 2.28 and up, with or
// without a libstdc++ (native/compat/glibc_compat.c and the static link in scripts/prebuild.mjs, CMakeLists.txt
// and binding.gyp). Checked with binutils' objdump, as the dynamic loader reads the file.
import { execa } from 'execa';
import * as path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { ROOT } from '../support/pid1';
import {
  buildPrebuilds,
  compareVersions,
  ELF_MACHINE,
  elfMachine,
  loadRequirements,
  PLATFORMS,
  PREBUILD,
  prebuildPath,
  symbolsNeeding,
} from '../support/shipping';

/** The supported Node lines' own glibc floor (22, 24 and 26 all need 2.28). */
const GLIBC_FLOOR = '2.28';
const DEV_BUILD = path.join(ROOT, 'build', 'Release', 'sexton.node');

async function checkFloor(file: string): Promise<void> {
  const { needed, versions } = await loadRequirements(file);
  const all = Object.values(versions).flat();
  expect(all.length, 'objdump found no version references at all').toBeGreaterThan(0);

  const tooNew = all.filter((v) => v.startsWith('GLIBC_') && compareVersions(v.slice(6), GLIBC_FLOOR) > 0);
  const culprits = await Promise.all(tooNew.map(async (v) => `${v}: ${(await symbolsNeeding(file, v)).join(' ')}`));
  expect(culprits, `glibc versions above ${GLIBC_FLOOR}`).toEqual([]);

  // libstdc++ and libgcc are linked in: no reference to the system's copies.
  expect(all.filter((v) => /^(GLIBCXX|CXXABI|GCC)_/.test(v))).toEqual([]);
  expect(needed.filter((lib) => /libstdc\+\+|libgcc_s/.test(lib))).toEqual([]);
}

describe('prebuilt glibc addons (npm run build:prebuilds)', () => {
  beforeAll(buildPrebuilds, 180_000);

  for (const { arch } of PLATFORMS.filter((p) => p.libc === 'glibc')) {
    const file = prebuildPath(arch, 'glibc');

    test(`linux-${arch}: needs glibc ${GLIBC_FLOOR} at most and no GLIBCXX/CXXABI/GCC version`, async () => {
      expect(await elfMachine(file)).toBe(ELF_MACHINE[arch]);
      await checkFloor(file);
    });

    test(`linux-${arch}: is stripped`, async () => {
      const { stdout: symbols } = await execa('objdump', ['--syms', file]);
      expect(symbols).toMatch(/no symbols/);
    });
  }

  test(`linux-${process.arch} loads into this node`, async () => {
    const { stdout } = await execa(process.execPath, ['-e', 'console.log(Object.keys(require(process.argv[1])).length > 5)', PREBUILD]);
    expect(stdout).toBe('true');
  });
});

test(`the development build (npm run build) also needs glibc ${GLIBC_FLOOR} at most`, async () => {
  await checkFloor(DEV_BUILD);
});
