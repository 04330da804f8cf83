// The prebuilt addon must load wherever Node 20 runs: glibc 2.28 and up, with or without a
// libstdc++ (native/glibc_compat.c and the static link in CMakeLists.txt / binding.gyp).
// Checked with binutils' objdump, as the dynamic loader reads the file.
import { execa } from 'execa';
import * as path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { ROOT } from './support/pid1';
import { buildPrebuild, compareVersions, loadRequirements, PREBUILD, symbolsNeeding } from './support/shipping';

/** Node 20's own glibc floor. */
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

describe('prebuilt addon (npm run prebuildify)', () => {
  beforeAll(buildPrebuild, 180_000);

  test(`needs glibc ${GLIBC_FLOOR} at most and no GLIBCXX/CXXABI/GCC version`, async () => {
    await checkFloor(PREBUILD);
  });

  test('is stripped and loads into node', async () => {
    const { stdout: symbols } = await execa('objdump', ['--syms', PREBUILD]);
    expect(symbols).toMatch(/no symbols/);
    const { stdout } = await execa(process.execPath, ['-e', 'console.log(Object.keys(require(process.argv[1])).length > 5)', PREBUILD]);
    expect(stdout).toBe('true');
  });
});

test(`the development build (npm run build) also needs glibc ${GLIBC_FLOOR} at most`, async () => {
  await checkFloor(DEV_BUILD);
});
