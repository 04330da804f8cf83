// "Never blame what is not wrong": with sexton as a real PID 1, a live parent is said to hold
// zombies (in the log, the stats and --strict) only for zombies it has held 500 ms or more. A
// parent that reaps a little late always has a young zombie when the stop comes, and must not be
// blamed; one that never reaps must be, even when its zombie is first seen at the stop.
import * as path from 'node:path';
import { afterEach, beforeAll, expect, test } from 'vitest';
import { ZOMBIE_BLAME_MS } from '../../src/init/process-tree';
import { freshDir, removeDirs, statusJson } from '../support/observability';
import { fixture, requireBuilt, startPid1, until, zombiesUnder } from '../support/pid1';

beforeAll(requireBuilt);
afterEach(removeDirs);

test('a parent that reaps 200 ms late holds a zombie at every stop, and is never blamed: --strict exits 0', async () => {
  for (let round = 0; round < 3; round++) {
    const run = await startPid1(['-vv', '--strict', '--grace', '5', '--', 'perl', fixture('late-reaper.pl'), '0.2'], { timeoutMs: 30_000 });
    await run.waitFor('forking');
    // The stop comes while a zombie is there, and the parent has held one at every moment since
    // sexton's first look (the warm-up scan as the exporters start, said at -vv) for longer than
    // the blame age: only a zombie's own age may spare it, not the parent's.
    await run.waitFor('exporters started: none', 'stderr');
    await new Promise((r) => setTimeout(r, ZOMBIE_BLAME_MS + 100));
    await until(() => zombiesUnder(run.pid1).length > 0, 5_000, 'a zombie of the late reaper');
    run.signal('SIGTERM');
    const done = await run.done();
    expect(done.exitCode, done.stderr).toBe(0);
    expect(done.stderr).not.toMatch(/holds \d+ zombie|strict:/);
  }
});

test('a parent that never reaps is blamed at the second look, 500 ms after the stop: log, stats, --strict 70', async () => {
  const socket = path.join(freshDir(), 'status.sock');
  const run = await startPid1(['--strict', '--grace', '10', '--status-socket', socket, '--', 'perl', fixture('never-reaper.pl'), '3'], { timeoutMs: 30_000 });
  await run.waitFor(/child \d+/);
  await until(() => zombiesUnder(run.pid1).length === 1, 5_000, 'the zombie');
  const stopped = Date.now();
  run.signal('SIGTERM');
  await run.waitFor(/holds 1 zombie\(s\) it never waited for \(held 500 ms or more\)/, 'stderr', 10_000);
  // First seen at most 100 ms after the start (the warm-up look), so never blamed at the stop.
  expect(Date.now() - stopped).toBeGreaterThanOrEqual(ZOMBIE_BLAME_MS - 150);
  const stats = await statusJson(socket, run.pid1);
  expect(stats.zombieCount).toBe(1);
  expect(stats.zombies).toEqual([expect.objectContaining({ zombies: 1, command: expect.stringContaining('never-reaper.pl') })]);
  const done = await run.done();
  expect(done.exitCode, done.stderr).toBe(70);
  expect(done.stderr).toMatch(/strict: reaped 1 orphan\(s\).*; pid \d+ \(perl .*never-reaper\.pl 3\) held 1 zombie\(s\)/);
  expect(done.stderr.match(/holds 1 zombie/g)).toHaveLength(1);
});
