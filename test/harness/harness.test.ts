// The harness: each workload leaks as PID 1 without an init and leaks nothing under
// sexton; the zombie pod's parents are named; `--init 'tini --'` works; `sexton --strict` turns a
// leak into a failing exit status. Every run is a real PID namespace, bounded by the harness's own
// timeouts; afterEach SIGKILLs any run a failed test left behind.
import * as path from 'node:path';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { assertNoZombieLeak, formatReport, runAsPid1, runWorkload, type WorkloadReport } from '../../src/harness/index';
import { FIXTURES, requireBuilt, requireTini, startPid1 } from '../support/pid1';
import { harnessCli, killHarnessRuns, parseJsonReport } from '../support/harness';

const ORPHANS = 100;
const STORM = 500;
const EXHAUSTION_SECONDS = 2;
const PARENTS = 10;

beforeAll(requireBuilt);
afterEach(() => {
  killHarnessRuns();
});

/** The zombie-N names of the parents a report or sexton's log blames, sorted. */
function zombieNames(parents: { command: string }[]): string[] {
  return parents.map((p) => /zombie-\d+/.exec(p.command)?.[0] ?? p.command).sort();
}
const ALL_PARENTS = Array.from({ length: PARENTS }, (_, i) => `zombie-${i + 1}`).sort();

/** A run that leaked without an init: PID 1 ignored SIGTERM (no handler) and had to be killed. */
function expectKilledNoInit(report: WorkloadReport): void {
  expect(report.init).toBe('none');
  expect(report.timedOut).toBe(true);
  expect(report.exitCode).toBeNull();
  expect(() => assertNoZombieLeak(report)).toThrow(/zombie leak under init 'none'/);
}

/** A run sexton cleaned up: stopped by SIGTERM, PID 1 exited by itself with 128+15. */
function expectStoppedBySexton(report: WorkloadReport): void {
  expect(report.init).toBe('sexton');
  expect(report.timedOut, report.stderr).toBe(false);
  expect(report.exitCode, report.stderr).toBe(143);
  expect(report.stderr).toMatch(/sexton: exiting with 143/);
}

describe('orphans (through the CLI, --json)', () => {
  test('--init none: every orphan stays a zombie until the namespace is killed; init-failed, exit 1', async () => {
    const run = await harnessCli(['orphans', '--init', 'none', '--json', '--size', String(ORPHANS)]);
    expect(run.exitCode, run.stderr).toBe(1);
    const report = parseJsonReport(run);
    // The documented fields, with their types.
    expect(report).toMatchObject({
      workload: 'orphans', init: 'none', eagain: 0, exitCode: null, verdict: 'init-failed',
      zombiesBeforeStop: ORPHANS, zombiesHeldByLiveParents: 0, zombiesLeftAtExit: ORPHANS, zombieParents: [],
    });
    // The peak may hold one more: a batch's shell, a zombie of the app from its exit to Node's
    // reap of it, when a sample falls in between (seen once in a CI run, as uid 65534).
    expect(report.peakZombies).toBeGreaterThanOrEqual(ORPHANS);
    expect(report.peakZombies).toBeLessThanOrEqual(ORPHANS + 1);
    expect(report.durationMs).toEqual(expect.any(Number));
    const samples = report.samples as { atMs: number; zombies: number; processes: number }[];
    expect(samples.length).toBeGreaterThan(10);
    for (const s of samples) expect(s).toEqual({ atMs: expect.any(Number), zombies: expect.any(Number), processes: expect.any(Number) });
    // They pile up and remain: the last sample, after SIGTERM, still has every one of them.
    expect(samples.at(-1)?.zombies).toBe(ORPHANS);
    expect(samples.map((s) => s.atMs)).toEqual([...samples.map((s) => s.atMs)].sort((a, b) => a - b));
  });

  test('under sexton (the default): no zombie piles up, none is left; exit 0', async () => {
    const run = await harnessCli(['orphans', '--json', '--size', String(ORPHANS)]);
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const report = parseJsonReport(run);
    expect(report).toMatchObject({
      workload: 'orphans', init: 'sexton', exitCode: 143, timedOut: false, verdict: 'clean',
      zombiesBeforeStop: 0, zombiesHeldByLiveParents: 0, zombiesLeftAtExit: 0, eagain: 0, zombieParents: [],
    });
    expect(report.peakZombies).toBeLessThan(20);  // only between an exit and the reaper's next wait
    // sexton's own counts, from its stats file at exit (in the JSON as sextonStats).
    const stats = report.sextonStats as { orphansReaped?: number; reaped?: number } | undefined;
    expect(stats?.orphansReaped, String(report.stderr)).toBe(ORPHANS);
    expect(stats?.reaped).toBe(ORPHANS + 1);  // and the workload itself
  });

  test('bad input exits 2 with a message', async () => {
    const unknown = await harnessCli(['no-such-workload']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toMatch(/unknown workload 'no-such-workload'/);
    const size = await harnessCli(['storm', '--size', '0']);
    expect(size.exitCode).toBe(2);
    expect(size.stderr).toMatch(/--size/);
  });
});

describe('storm', () => {
  test('--init none: all zombies remain, 100 ms after the storm and at the end; never drained', async () => {
    const report = await runWorkload('storm', { init: 'none', size: STORM });
    expectKilledNoInit(report);
    expect(report.peakZombies).toBe(STORM);
    expect(report.zombiesLeftAtExit).toBe(STORM);
    expect(report.zombiesAfter100ms).toBeGreaterThan(STORM * 0.9);
    expect(report.drainMs).toBeNull();
  });

  test('under sexton: no zombie 100 ms after the storm, none at the end', async () => {
    const report = await runWorkload('storm', { init: 'sexton', size: STORM });
    expectStoppedBySexton(report);
    expect(report.zombiesAfter100ms).toBe(0);
    expect(report.zombiesLeftAtExit).toBe(0);
    expect(report.verdict).toBe('clean');
    expect(report.drainMs).not.toBeNull();
    expect(report.peakZombies).toBeLessThan(STORM / 5);
    expect(report.sextonStats?.orphansReaped).toBe(STORM);
  });
});

describe('pid-exhaustion (pids cgroup, limit 200)', () => {
  test('--init none: zombies fill the limit and fork fails with EAGAIN', async () => {
    const report = await runWorkload('pid-exhaustion', { init: 'none', size: EXHAUSTION_SECONDS });
    expectKilledNoInit(report);
    expect(report.eagain).toBeGreaterThan(0);
    expect(report.peakZombies).toBeGreaterThan(150);  // the limit, less the few live processes
  });

  test('under sexton: fork never fails', async () => {
    const report = await runWorkload('pid-exhaustion', { init: 'sexton', size: EXHAUSTION_SECONDS });
    expectStoppedBySexton(report);
    expect(report.eagain).toBe(0);
    expect(report.zombiesLeftAtExit).toBe(0);
    // Far more orphans than the limit went through: only reaping made room for them.
    expect(report.sextonStats?.orphansReaped).toBeGreaterThan(200);
  });
});

describe('zombie-pod', () => {
  test('--init none: zombie-1..10 hold their zombies, PID 1 ignores SIGTERM, and all 10 are there until SIGKILL', async () => {
    const run = await harnessCli(['zombie-pod', '--init', 'none', '--json']);
    expect(run.exitCode, run.stderr).toBe(1);  // init-failed
    const report = JSON.parse(run.stdout) as WorkloadReport;
    expectKilledNoInit(report);
    expect(report.verdict).toBe('init-failed');
    expect(report.zombiesHeldByLiveParents).toBe(PARENTS);
    expect(zombieNames(report.zombieParents)).toEqual(ALL_PARENTS);
    // Every sample from the stop to the kill (the last is taken just before SIGKILL) has all 10.
    const stoppedAt = report.durationMs - 3000;  // killAfterStopMs
    const afterStop = report.samples.filter((s) => s.atMs >= stoppedAt);
    expect(afterStop.length).toBeGreaterThan(10);
    for (const s of afterStop) expect(s.zombies).toBe(PARENTS);
    expect(report.zombiesLeftAtExit).toBe(PARENTS);
    expect(() => assertNoZombieLeak(report, { scope: 'init' })).toThrow(/init failed: PID 1 did not exit and was killed, with 10 zombie\(s\) left/);
  });

  test('under sexton: the parents are named while it runs; after the stop 0 are left; app-leaks, exit 3', async () => {
    const run = await harnessCli(['zombie-pod', '--json']);
    expect(run.exitCode, run.stderr).toBe(3);  // app-leaks: the app's parents leaked, sexton cleaned up
    const report = JSON.parse(run.stdout) as WorkloadReport;
    expect(report.verdict).toBe('app-leaks');
    // (a) While it runs: no init can reap these, so the report blames each parent, by pid, command and age.
    expect(report.zombiesBeforeStop).toBe(PARENTS);
    expect(report.zombiesHeldByLiveParents).toBe(PARENTS);
    expect(zombieNames(report.zombieParents)).toEqual(ALL_PARENTS);
    for (const parent of report.zombieParents) {
      expect(parent.pid).toBeGreaterThan(1);
      expect(parent.zombies).toBe(1);
      expect(parent.oldestMs).toBeGreaterThanOrEqual(2000);  // held from start to the stop, at least
    }
    // The two readings: the pod leaked (the app's bug), the init did not.
    expect(() => assertNoZombieLeak(report)).toThrow(/app leaks: pid \d+ \(zombie-1\b/);
    expect(() => assertNoZombieLeak(report, { scope: 'init' })).not.toThrow();
    const table = formatReport(report);
    expect(table).toMatch(/live parents holding zombies while the app ran:[\s\S]*zombie-10/);
    expect(table).toMatch(/left when PID 1 exited\s+0 /);
    expect(table).toMatch(/verdict\s+app-leaks/);

    // sexton's own log at shutdown names the same parents, with the same (namespace) pids.
    const held = [...report.stderr.matchAll(/sexton: pid (\d+) \((.*?)\) holds (\d+) zombie\(s\)/g)]
      .map(([, pid, command, zombies]) => ({ pid: Number(pid), command, zombies: Number(zombies) }));
    expect(zombieNames(held), report.stderr).toEqual(ALL_PARENTS);
    expect(held.map((p) => p.pid).sort()).toEqual(report.zombieParents.map((p) => p.pid).sort());

    // (b) After SIGTERM: the parents ignore it, die at the 2 s grace period, and sexton reaps them
    // and their re-parented zombies, then exits by itself: main child + 10 parents + 10 zombies.
    expectStoppedBySexton(report);
    expect(report.durationMs).toBeGreaterThanOrEqual(2000 + 2000);  // stop after 2 s, then the grace period
    expect(report.sextonStats?.survivorsKilled).toBe(PARENTS);
    expect(report.stderr).not.toMatch(/still there after SIGKILL/);
    expect(report.sextonStats?.orphansReaped, report.stderr).toBe(2 * PARENTS);
    expect(report.sextonStats?.reaped).toBe(2 * PARENTS + 1);
    // The JSON agrees with sexton's own report at exit.
    expect(report.sextonStats?.zombieCount).toBe(0);
    expect(report.zombiesLeftAtExit).toBe(0);
  });
});

test("--init 'tini --' runs another init as PID 1 (CLI, --json)", async () => {
  requireTini();
  const run = await harnessCli(['storm', '--init', 'tini --', '--json', '--size', String(STORM)]);
  expect(run.exitCode, run.stdout + run.stderr).toBe(0);
  expect(parseJsonReport(run)).toMatchObject({
    workload: 'storm', init: 'tini --', exitCode: 143, timedOut: false, zombiesLeftAtExit: 0, zombiesAfter100ms: 0, verdict: 'clean',
  });
});

describe('sexton --strict as PID 1', () => {
  const script = (name: string) => path.join(FIXTURES, name);

  test('exits 70 when the child exited 0 but left an orphan', async () => {
    const { exitCode, stderr } = await (await startPid1(['--strict', '--', 'sh', script('harness-strict-orphan.sh')])).done();
    expect(exitCode, stderr).toBe(70);
    expect(stderr).toMatch(/strict: reaped 1 orphan\(s\)/);
  });

  test('exits 70 and names the parent when a live parent held a zombie', async () => {
    const { exitCode, stderr } = await (await startPid1(['--strict', '--', 'sh', script('harness-strict-held.sh')])).done();
    expect(exitCode, stderr).toBe(70);
    expect(stderr).toMatch(/strict: .*pid \d+ \(sleep 30\) held 1 zombie\(s\)/);
  });

  test("keeps a failing child's own status", async () => {
    const { exitCode, stderr } = await (await startPid1(['--strict', '--', 'sh', script('harness-strict-orphan.sh'), '3'])).done();
    expect(exitCode, stderr).toBe(3);
  });

  test('exits 0 for a child that waits for everything it starts', async () => {
    const { exitCode, stdout, stderr } = await (await startPid1(['--strict', '--', 'sh', script('harness-strict-clean.sh')])).done();
    expect(stdout).toContain('clean');
    expect(exitCode, stderr).toBe(0);
    expect(stderr).not.toMatch(/strict:/);
  });
});

test("the docs/harness.md example's assertion fails for the same entrypoint without an init", async () => {
  // test/docs/readme-example.test.ts proves it passes under sexton; this proves it can fail.
  const report = await runAsPid1([process.execPath, path.join(FIXTURES, 'harness-app.js')], {
    init: 'none', killAfterStopMs: 2000, onLine: (line, stop) => line === 'ready' && stop(1500),
  });
  expect(report.exitCode).toBe(0);  // it handles SIGTERM, even as PID 1...
  expect(report.verdict).toBe('init-failed');
  expect(() => assertNoZombieLeak(report, { scope: 'init' })).toThrow(/init failed: 20 zombie\(s\) were left when PID 1 exited/);  // ...but reaps nothing
});

// Known harness bug (reported): a run that never started (init missing here; as non-root, unshare
// fails with EPERM) reports no zombies, so both the CLI and assertNoZombieLeak call it clean.
test('a run whose PID 1 never started is a failure, not "no leak"', async () => {
  const report = await runAsPid1(['sleep', '1'], { init: 'no-such-init --' });
  expect(report.stderr).toMatch(/no-such-init/);
  expect(() => assertNoZombieLeak(report)).toThrow();
  expect(report.verdict).toBe('not-run');
  const run = await harnessCli(['orphans', '--init', 'no-such-init --', '--size', '10']);
  expect(run.exitCode, run.stdout).toBe(4);
});
