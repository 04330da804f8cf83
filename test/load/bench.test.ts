// The benchmark must not rot: its quick mode runs here, end to end, against every peer. Speed is
// not asserted (the machine is shared and noisy); that every measurement produced a number for
// every init, and that the budget was evaluated, is.
import { execa } from 'execa';
import * as path from 'node:path';
import { beforeAll, expect, test } from 'vitest';
import { rowsOf } from '../support/markdown';
import { requireBuilt, ROOT } from '../support/pid1';

const CANDIDATES = ['sexton', 'tini', 'tini-static', 'dumb-init', 'catatonit'];
/** Startup and memory; idle and signals; the signal flood; orphan storm, burst and shutdown. */
const TABLES = 4;
const BUDGET_LINES = 24;
/** The exec probe calls (sexton's and their references) and the report load's row. */
const EXEC_ROWS = ['sexton probe --timeout 5 -- true', 'timeout 5 true (reference)', 'sexton status --ready', 'sexton status (the table)',
  'socat on the same socket (reference)', 'sexton under the report load'];

beforeAll(requireBuilt);

test('bench --quick measures every init and evaluates the budget', async () => {
  const result = await execa(process.execPath, [path.join(ROOT, 'bench', 'run.mjs'), '--quick', '--no-write'], {
    cwd: ROOT, reject: false, timeout: 240_000, killSignal: 'SIGKILL', all: true,  // 150 s on a quiet machine
  });
  expect(result.exitCode, result.all).toBe(0);
  for (const name of CANDIDATES) {
    const rows = rowsOf(result.stdout, name);
    expect(rows, `rows for ${name}\n${result.all}`).toHaveLength(TABLES);
    // A cell without a digit ('—', NaN, empty) means a measurement produced nothing.
    for (const cell of rows.flat()) expect(cell, `${name} in\n${result.stdout}`).toMatch(/\d/);
  }
  const scan = rowsOf(result.stdout, 'sexton scan --json');
  expect(scan, result.stdout).toHaveLength(1);
  for (const cell of scan[0]) expect(cell, result.stdout).toMatch(/\d/);
  for (const name of EXEC_ROWS) {
    const rows = rowsOf(result.stdout, name);
    expect(rows, `${name} in\n${result.stdout}`).toHaveLength(1);
    for (const cell of rows[0]) expect(cell, `${name} in\n${result.stdout}`).toMatch(/\d/);
  }
  const verdicts = result.stdout.split('\n').filter((line) => /^(PASS|MISS) {2}/.test(line));
  expect(verdicts, result.stdout).toHaveLength(BUDGET_LINES);
}, 270_000);
