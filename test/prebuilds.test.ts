// `npm run build:prebuilds` is reproducible: the same sources give the same four files byte for
// byte, whatever the checkout's path, so a CI build can be compared with a published one.
import { execa } from 'execa';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { expect, test } from 'vitest';
import { ROOT } from './support/pid1';
import { buildPrebuilds, PLATFORMS, prebuildPath } from './support/shipping';

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

test('the four prebuilds are the same byte for byte when built from a checkout elsewhere', async () => {
  const elsewhere = mkdtempSync(path.join(tmpdir(), 'sexton-repro-'));
  try {
    for (const part of ['scripts', 'native', 'package.json']) cpSync(path.join(ROOT, part), path.join(elsewhere, part), { recursive: true });
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(elsewhere, 'node_modules'));
    await Promise.all([buildPrebuilds(), execa(process.execPath, ['scripts/prebuild.mjs'], { cwd: elsewhere, timeout: 180_000 })]);
    for (const { arch, libc } of PLATFORMS) {
      expect(sha256(prebuildPath(arch, libc, elsewhere)), `linux-${arch} ${libc}`).toBe(sha256(prebuildPath(arch, libc)));
    }
  } finally {
    rmSync(elsewhere, { recursive: true, force: true });
  }
}, 240_000);
