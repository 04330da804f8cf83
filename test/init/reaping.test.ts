// sexton reaps every orphan: as PID 1 of a namespace, and as a child subreaper when it is not.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeAll, expect, test } from 'vitest';
import { commandLine, runDirect } from '../support/core';
import { fixture, requireBuilt, startPid1, sleep, until, zombiesUnder } from '../support/pid1';
import { hostDescendants, procStat } from '../support/processes';
import { childrenOf } from '../../src/harness/namespace';

const ORPHANS = fixture('core-orphans.sh');
const NO_INIT = fixture('core-noinit.js');

/** Scratch directories of this file's runs, removed after each test. */
const dirs: string[] = [];

/** A stats file for one run, and sexton's final counts from it (its state, not its log). */
function statsFile(): { path: string; read(): { reaped: number; orphansReaped: number } } {
  const dir = mkdtempSync(path.join(tmpdir(), 'sexton-reaping-'));
  dirs.push(dir);
  const file = path.join(dir, 'stats.json');
  return { path: file, read: () => JSON.parse(readFileSync(file, 'utf8')) };
}

beforeAll(requireBuilt);
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});


/** Samples the zombie count under pid every few ms until `stop` resolves; returns the largest. */
async function maxZombiesUntil(pid: number, stop: Promise<unknown>): Promise<number> {
  let done = false;
  const ended = stop.finally(() => (done = true));
  let max = 0;
  while (!done) {
    max = Math.max(max, zombiesUnder(pid).length);
    await sleep(5);
  }
  await ended;  // a wait that timed out fails the test here
  return max;
}

test('as PID 1, 1000 orphans of a running child are all reaped and never pile up', async () => {
  // The orphans exit at once; the child then stays (as one `sleep`) for 2 s.
  const stats = statsFile();
  const run = await startPid1(['-v', '--stats-file', stats.path, '--', 'sh', ORPHANS, '1000', '0', '2']);
  const maxWhileForking = await maxZombiesUntil(run.pid1, run.waitFor('orphans made: 1000'));
  // A zombie lives only between its exit and the reaper thread's next wait: a handful at most.
  expect(maxWhileForking).toBeLessThan(50);
  await until(() => zombiesUnder(run.pid1).length === 0, 500, 'zero zombies after the orphans finished');

  // While the child still runs, no zombie shows up again, up to sexton's own count of all 1000
  // reaped (its stats file, rewritten within a second of a change): none is left to show up.
  const child = childrenOf(run.pid1)[0];
  const counted = () => {
    try {
      return stats.read().orphansReaped >= 1000;
    } catch {
      return false;  // not written yet
    }
  };
  const maxWhileHolding = await maxZombiesUntil(run.pid1, until(counted, 1500, 'the stats file counting 1000 orphans'));
  expect(maxWhileHolding).toBe(0);
  expect(procStat(child)?.state).toMatch(/^[RS]$/);

  const result = await run.done();
  expect(result.exitCode).toBe(0);
  const { reaped, orphansReaped } = stats.read();
  expect(orphansReaped, result.stderr).toBeGreaterThanOrEqual(1000);
  expect(reaped).toBeGreaterThan(orphansReaped);  // the main child is counted too
});

test('contrast: a PID 1 that never waits lets the same orphans pile up as zombies', async () => {
  const run = await startPid1(['node', NO_INIT, 'sh', ORPHANS, '1000', '0', '1'], { raw: true });
  await run.waitFor('orphans made: 1000');
  // The measurement above would see these, so it can fail.
  await until(() => zombiesUnder(run.pid1).length >= 1000, 3000, '1000 zombies under a non-init PID 1');
  expect((await run.done()).exitCode).toBe(0);
});

test('not PID 1: orphans of the child are re-parented to sexton, the subreaper, and reaped', async () => {
  // 20 orphans that live 0.8 s, while the child stays for 2 s.
  const stats = statsFile();
  const proc = runDirect(['-v', '--stats-file', stats.path, '--', 'sh', ORPHANS, '20', '0.8', '2']);
  const sexton = proc.pid as number;
  let stdout = '';
  proc.stdout?.on('data', (d) => (stdout += d));
  await until(() => stdout.includes('orphans made: 20'), 10_000, 'the orphans');

  // "made" is printed once they are forked; each is `sleep` only once its shell has exec'd it.
  const sleeping = () => childrenOf(sexton).filter((pid) => commandLine(pid).join(' ') === 'sleep 0.8');
  const orphans = await until(() => sleeping().length === 20 && sleeping(), 3000, `20 sleeping orphans (have ${sleeping().length})`);
  for (const pid of orphans) expect(procStat(pid)?.ppid).toBe(sexton);

  // They die while the main child still runs: sexton reaps them, none stays a zombie.
  await until(() => childrenOf(sexton).length === 1, 3000, 'only the main child left under sexton');
  const [main] = childrenOf(sexton);
  expect(procStat(main)?.state).toMatch(/^[RS]$/);
  expect(zombiesUnder(sexton)).toEqual([]);

  const result = await proc;
  expect(result.exitCode).toBe(0);
  expect(stats.read().orphansReaped).toBeGreaterThanOrEqual(20);
});

test('not PID 1 with --no-subreaper: sexton warns once, and orphans are not its to reap', async () => {
  // Orphans that exit at once: they escape to the machine's init, which reaps them.
  const stats = statsFile();
  const proc = runDirect(['-v', '--no-subreaper', '--stats-file', stats.path, '--', 'sh', ORPHANS, '5', '0', '0.3']);
  const sexton = proc.pid as number;
  let seenForeign = false;
  const watching = (async () => {
    while (proc.exitCode === null) {
      // Only the main child (sh, then nothing else) may ever be sexton's child.
      if (childrenOf(sexton).length > 1) seenForeign = true;
      await sleep(5);
    }
  })();
  const result = await proc;
  await watching;
  expect(result.exitCode).toBe(0);
  const warnings = result.stderr.split('\n').filter((line) => /not PID 1 and not a subreaper/.test(line));
  expect(warnings, result.stderr).toHaveLength(1);
  expect(stats.read().orphansReaped).toBe(0);
  expect(seenForeign).toBe(false);
  expect(hostDescendants(sexton)).toEqual([]);
});
