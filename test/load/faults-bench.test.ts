// bench/measure/faults.mjs must not rot: one round of each measurement runs here, end to end,
// beside tini. Figures are not asserted (bench/RESULTS.md has them); that each produced one is.
import { execa } from 'execa';
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { beforeAll, expect, test } from 'vitest';
import { rowsOf } from '../support/markdown';
import { MEMORY_V1, requireMemoryCgroupV1 } from '../support/faults';
import { requireBuilt, requireTini, ROOT } from '../support/pid1';

beforeAll(() => {
  requireBuilt();
  requireTini();
  requireMemoryCgroupV1();
});

test('bench/measure/faults.mjs --rounds 1 gives every figure', async () => {
  const result = await execa(process.execPath, [path.join(ROOT, 'bench', 'measure', 'faults.mjs'), '--rounds', '1'], {
    cwd: ROOT, reject: false, timeout: 240_000, killSignal: 'SIGKILL', all: true,
  });
  expect(result.exitCode, result.all).toBe(0);
  const out = result.stdout;
  // OOM victims: 3 limits × 2 workloads; the default policy never loses PID 1.
  const victims = [...rowsOf(out, 'one big child'), ...rowsOf(out, 'workers of 12 MiB')];
  expect(victims, out).toHaveLength(6);
  for (const row of victims) {
    expect(row, out).toHaveLength(4);  // limit, sexton, sexton off, tini
    expect(row[1], out).toMatch(/^app 1\/1 \(\d+–\d+ kill\(s\)\)$/);
  }
  // Memory and room: a number in every cell.
  for (const name of ['sexton', 'tini', 'none (the app is PID 1)']) {
    const rows = rowsOf(out, name);
    expect(rows.length, `${name} in\n${out}`).toBeGreaterThan(0);
    for (const cell of rows.flat()) expect(cell, out).toMatch(/\d/);
  }
  expect(out).toMatch(/SIGKILL at grace .*\(median [+-]?\d+\.\d ms\)/);
  expect(out).toMatch(/RssAnon \d+\.\d → \d+\.\d MiB; TERM → exit afterwards \d+\.\d ms/);
  // It left no cgroup behind.
  expect(readdirSync(MEMORY_V1).filter((name) => name.startsWith('sexton-bench-faults-'))).toEqual([]);
}, 300_000);
