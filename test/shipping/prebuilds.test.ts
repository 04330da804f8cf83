// `npm run build:prebuilds` is reproducible: the same sources give the same four files byte for
// byte, whatever the checkout's path, so a CI build can be compared with a published one. And
// it builds only what is stale, so the several test files and `npm pack` that ask for the
// prebuilds in one run build them once.
import { execa } from 'execa';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { expect, test } from 'vitest';
import { ROOT } from '../support/pid1';
import { buildPrebuilds, PLATFORMS, prebuildPath } from '../support/shipping';

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

test('the four prebuilds are the same byte for byte when built from a checkout elsewhere', async () => {
  const elsewhere = mkdtempSync(path.join(tmpdir(), 'sexton-repro-'));
  try {
    for (const part of ['scripts', 'native', 'package.json']) cpSync(path.join(ROOT, part), path.join(elsewhere, part), { recursive: true });
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(elsewhere, 'node_modules'));
    // --force: elsewhere shares node_modules, and so the record of what was built from what.
    await Promise.all([buildPrebuilds(), execa(process.execPath, ['scripts/prebuild.mjs', '--force'], { cwd: elsewhere, timeout: 180_000 })]);
    for (const { arch, libc } of PLATFORMS) {
      expect(sha256(prebuildPath(arch, libc, elsewhere)), `linux-${arch} ${libc}`).toBe(sha256(prebuildPath(arch, libc)));
    }
  } finally {
    rmSync(elsewhere, { recursive: true, force: true });
  }
}, 240_000);

test('a second build with unchanged inputs builds nothing; --force builds again', async () => {
  await buildPrebuilds();
  const again = await execa(process.execPath, ['scripts/prebuild.mjs'], { cwd: ROOT, timeout: 180_000 });
  expect(again.stdout).toMatch(/^prebuilds: up to date/);
  const forced = await execa(process.execPath, ['scripts/prebuild.mjs', '--force', '--target', 'linux-arm64-musl'], { cwd: ROOT, timeout: 180_000 });
  // The musl target also builds the static native probe and status, which serve either C library.
  expect(forced.stdout).toMatch(/^prebuilds: built linux-arm64\/sexton\.musl\.node linux-arm64\/sexton-probe linux-arm64\/sexton-status in/);
}, 240_000);
