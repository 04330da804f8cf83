// What the build ships apart: the scanner is a bundle of its own, which the init never loads.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { beforeAll, expect, test } from 'vitest';
import { requireBuilt, ROOT } from '../support/pid1';

beforeAll(requireBuilt);

test("the init's bundle carries no scanner: dist/scan.js is loaded only by `sexton scan`", () => {
  const init = readFileSync(path.join(ROOT, 'dist', 'init.js'), 'utf8');  // what dist/sexton.js runs
  const scanner = readFileSync(path.join(ROOT, 'dist', 'scan.js'), 'utf8');
  for (const marker of ['libpod_parent', 'sexton_scan_zombies', 'readKubeletNames']) {
    expect(scanner).toContain(marker);
    expect(init).not.toContain(marker);
  }
  expect(init).toMatch(/\["scan\.js", "scanMain"\]/);  // src/config/tools.ts: loaded from dist/ when asked for
});
