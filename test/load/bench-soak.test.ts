// bench/measure/soak.mjs must not rot: a half-minute soak runs here, end to end, sexton beside
// tini, with a 10 s warm-up so that there is a slope to compute. Figures are not asserted
// (bench/RESULTS.md has the hour's); that each was produced, and that the churn ran, is.
import { execa } from 'execa';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeAll, expect, test } from 'vitest';
import { requireBuilt, requireTini, ROOT } from '../support/pid1';

beforeAll(() => {
  requireBuilt();
  requireTini();
});

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('bench/measure/soak.mjs --minutes 0.5 gives every figure for sexton and tini', async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sexton-test-soak-'));
  const out = path.join(dir, 'soak.jsonl');
  const result = await execa(process.execPath, [path.join(ROOT, 'bench', 'measure', 'soak.mjs'), '--minutes', '0.5', '--warm-up', '10', '--out', out], {
    cwd: ROOT, reject: false, timeout: 90_000, killSignal: 'SIGKILL', all: true,
  });
  expect(result.exitCode, result.all).toBe(0);
  const lines = readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
  const { summary } = lines.at(-1);
  expect(Object.keys(summary.byCandidate)).toEqual(['sexton', 'tini']);
  // A sample at 1 s and one 5 s after each of the three query rounds, per candidate.
  expect(lines.filter((l) => l.candidate === 'sexton')).toHaveLength(4);
  expect(lines.filter((l) => l.candidate === 'tini')).toHaveLength(4);
  for (const [name, c] of Object.entries<Record<string, any>>(summary.byCandidate)) {
    for (const field of ['rssAnon', 'vmRss', 'rssFile']) {
      for (const figure of ['start', 'warmUpRise', 'slopePerMinute', 'end']) {
        expect(Number.isFinite(c[field][figure]), `${name} ${field} ${figure} in ${result.stdout}`).toBe(true);
      }
    }
    // The churn ran: ~200 orphans/s made and signals forwarded (the child reports every 10 s).
    expect(c.churn.orphans, `${name}: ${c.child}`).toBeGreaterThan(1000);
    expect(c.churn.usr1, `${name}: ${c.child}`).toBeGreaterThan(500);
    expect(c.queryErrors, name).toBe(0);
  }
  expect(summary.byCandidate.sexton.threads[0]).toBeGreaterThan(1);
  expect(summary.byCandidate.tini.threads).toEqual([1, 1]);
  expect(result.stdout).toMatch(/^sexton\s+\d/m);
  expect(result.stdout).toMatch(/^tini\s+\d/m);
}, 120_000);
