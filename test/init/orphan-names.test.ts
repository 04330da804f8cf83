// Every orphan sexton reaps is counted under its command name, read from /proc just before the
// reap, or, when a storm outruns naming, as a number of unnamed orphans: never as a made-up
// command. Each test runs sexton as PID 1 of a fresh PID namespace and reads its stats file.
import { execa } from 'execa';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeAll, expect, test } from 'vitest';
import { runWorkload } from '../../src/harness/index';
import type { StatsSnapshot } from '../../src/report/stats';
import { requireBuilt, startPid1, SEXTON } from '../support/pid1';
import { killHarnessRuns } from '../support/harness';

const dirs: string[] = [];
function freshDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'sexton-names-'));
  dirs.push(dir);
  return dir;
}

beforeAll(requireBuilt);
afterEach(() => {
  killHarnessRuns();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const readStats = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as StatsSnapshot;

/**
 * Six orphans, copies of sleep named worker-1..worker-6, SIGKILLed by one `kill` command: they
 * die together, and the reaper finds them in one or two wake-ups.
 */
const KILLED_TOGETHER = `
  for i in 1 2 3 4 5 6; do
    cp "$(command -v sleep)" "$0/worker-$i"
    ( "$0/worker-$i" 1000 & echo $! >> "$0/pids" )
  done
  until [ "$(wc -l < "$0/pids")" -eq 6 ]; do sleep 0.01; done
  # Each has exec'd its name (a forked shell is still 'sh' until then).
  for pid in $(cat "$0/pids"); do
    until case "$(cat /proc/$pid/comm)" in worker-*) true ;; *) false ;; esac; do sleep 0.01; done
  done
  kill -KILL $(cat "$0/pids")
  sleep 0.5
`;

test('orphans killed at the same moment are each named', async () => {
  const dir = freshDir();
  const stats = path.join(dir, 'stats.json');
  const run = await startPid1(['--stats-file', stats, '--', 'sh', '-c', KILLED_TOGETHER, dir]);
  const { exitCode, stderr } = await run.done();
  expect(exitCode, stderr).toBe(0);
  const s = readStats(stats);
  expect(s.orphansReaped, stderr).toBe(6);
  expect(s.orphansByCommand).toEqual({ 'worker-1': 1, 'worker-2': 1, 'worker-3': 1, 'worker-4': 1, 'worker-5': 1, 'worker-6': 1 });
  expect(s.orphansUnnamed).toBe(0);
  expect(stderr).toMatch(/reaped 7 \(6 orphans: worker-\d×1/);
});

test("the zombie pod's 20 orphans, reaped at the grace period's kill, are all named", async () => {
  const report = await runWorkload('zombie-pod', { init: 'sexton' });
  const s = report.sextonStats;
  expect(s?.orphansReaped, report.stderr).toBe(20);
  // The 10 parents (zombie-N) and the 10 zombies they held (forked shells, 'sh').
  expect(s?.orphansByCommand.sh).toBe(10);
  expect(Object.keys(s?.orphansByCommand ?? {}).filter((c) => /^zombie-\d+$/.test(c)).length).toBe(10);
  expect(s?.orphansUnnamed).toBe(0);
});

test('a storm that outruns naming counts the rest as a number, and reaping keeps up', async () => {
  const STORM = 2000;
  const report = await runWorkload('storm', { init: 'sexton', size: STORM });
  const s = report.sextonStats as StatsSnapshot;
  expect(s.orphansReaped, report.stderr).toBe(STORM);
  const named = Object.values(s.orphansByCommand).reduce((sum, n) => sum + n, 0);
  expect(named + s.orphansUnnamed).toBe(STORM);
  // Its orphans are forked shells: every name read is 'sh', and no command is a placeholder.
  expect(Object.keys(s.orphansByCommand)).toEqual(['sh']);
  // The first burst (64) is named in full; most of the storm is not.
  expect(named).toBeGreaterThanOrEqual(64);
  expect(s.orphansUnnamed).toBeGreaterThan(0);
  expect(report.stderr).toMatch(new RegExp(`2000 orphans: sh×${named} ${s.orphansUnnamed} unnamed\\)`));
  expect(report.zombiesAfter100ms).toBe(0);
});

test("a namespace without its own /proc: orphans count as unnamed, never under another process's name", async () => {
  const dir = freshDir();
  const stats = path.join(dir, 'stats.json');
  // No --mount-proc: /proc is the host's, where the namespace's pids belong to other processes.
  const result = await execa('unshare', ['--pid', '--fork', '--kill-child', '--', process.execPath, SEXTON,
    '--status-socket', 'none', '--stats-file', stats, '--', 'sh', '-c', '( sleep 0.1 & ); ( sleep 0.1 & ); sleep 0.6'], {
    reject: false, stdin: 'ignore', timeout: 15_000, killSignal: 'SIGKILL',
  });
  expect(result.exitCode, String(result.stderr)).toBe(0);
  const s = readStats(stats);
  expect(s.orphansReaped).toBe(2);
  expect(s.orphansByCommand).toEqual({});
  expect(s.orphansUnnamed).toBe(2);
});
