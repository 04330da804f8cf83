// A leftover SIGKILL cannot end, with sexton as a real PID 1: a grandchild frozen by the cgroup
// v1 freezer stays in state D with SIGKILL pending. sexton names it (pid, state, wait channel,
// system call, pending kill) a moment after the SIGKILL, in its log, `sexton status`, metrics
// and the stats file, and exits within its bound; the namespace itself stays until the thaw,
// as a pod stays Terminating.
import { execa } from 'execa';
import * as path from 'node:path';
import { afterEach, beforeAll, expect, test } from 'vitest';
import { KILL_BACKSTOP_SECONDS, KILL_CHECK_SECONDS } from '../../src/init/lifecycle';
import { Freezer, removeFreezers, requireFreezer } from '../support/freezer';
import { freshDir, namespacePid, removeDirs, sample } from '../support/observability';
import { freePort } from '../support/http';
import { NATIVE_STATUS, requireBuilt, startPid1, until } from '../support/pid1';
import { hostDescendants, isExiting, procStat, readIfThere } from '../support/processes';

beforeAll(() => {
  requireBuilt();
  requireFreezer();
});
afterEach(async () => {
  await removeFreezers();
  removeDirs();
});

const GRACE = 1;

/** `sexton status` from the host, by its native client: PID 1 is the host pid named. */
async function statusTable(socket: string, pid1: number): Promise<{ stdout: string }> {
  const result = await execa(NATIVE_STATUS, ['--socket', socket, '--pid', String(pid1)], { reject: false, timeout: 5000 });
  return { stdout: String(result.stdout) };
}

test('a frozen grandchild outlives SIGKILL: named with state D, wchan and pending kill; sexton exits within its bound', async () => {
  const freezer = new Freezer('pid1');
  const dir = freshDir();
  const stats = path.join(dir, 'stats.json');
  const socket = path.join(dir, 'status.sock');
  const port = await freePort();
  // The main child (sh) starts the grandchild in the freezer cgroup, then sleeps itself.
  const app = `sh -c '${freezer.joinShell} && exec sleep 62.1' & exec sleep 62.2`;
  const run = await startPid1(['--grace', String(GRACE), '--stats-file', stats, '--status-socket', socket, '--metrics', `127.0.0.1:${port}`,
    '--', 'sh', '-c', app], { timeoutMs: 60_000 });
  const grandchild = await until(() => hostDescendants(run.pid1).find((pid) => readIfThere(`/proc/${pid}/cmdline`) === 'sleep\x0062.1\x00'), 10_000, 'the grandchild');
  await until(() => readIfThere(`/proc/${grandchild}/wchan`) === 'hrtimer_nanosleep', 10_000, 'the grandchild asleep');
  await freezer.freeze();

  const stopped = Date.now();
  run.signal('SIGTERM');
  // sexton names it a moment after its SIGKILL, and sexton status says it meanwhile.
  const inNamespace = namespacePid(grandchild);
  const line = new RegExp(`could not kill pid ${inNamespace} \\(sleep\\): state D uninterruptible, wchan hrtimer_nanosleep, syscall clock_nanosleep, SIGKILL pending`);
  await run.waitFor(line, 'stderr', 20_000);
  const named = Date.now() - stopped;
  expect(named).toBeGreaterThanOrEqual((GRACE + KILL_CHECK_SECONDS) * 1000 - 50);
  // Both asked at once, the status socket by the native client (no Node start-up to outlast
  // the window): sexton leaves 1.5 s after naming it.
  const [metrics, table] = await Promise.all([fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text()), statusTable(socket, run.pid1)]);
  expect(sample(metrics, 'sexton_unkillable_processes')).toBe(1);
  expect(table.stdout).toMatch(/^could not kill\s+1 \(still alive after SIGKILL\)$/m);
  expect(table.stdout).toContain(`  could not kill pid ${inNamespace} (sleep): state D, wchan hrtimer_nanosleep, syscall clock_nanosleep, SIGKILL pending`);

  // It leaves anyway, within the backstop; the kernel keeps PID 1 (and the namespace) until
  // the frozen process can die.
  await run.waitFor(/exiting with 143/, 'stderr', 20_000);
  const exited = Date.now() - stopped;
  expect(exited).toBeGreaterThanOrEqual((GRACE + KILL_BACKSTOP_SECONDS) * 1000 - 50);
  expect(exited).toBeLessThan((GRACE + KILL_BACKSTOP_SECONDS) * 1000 + 10_000);
  expect(run.stderr()).toContain('processes are still there after SIGKILL (uninterruptible?): exiting anyway');
  const file = JSON.parse(readIfThere(stats) ?? '{}');
  expect(file.unkillableCount).toBe(1);
  expect(file.unkillable).toEqual([{
    pid: inNamespace, command: 'sleep', state: 'D', wchan: 'hrtimer_nanosleep', syscall: 'clock_nanosleep', killPending: true, mount: null,
  }]);
  expect(procStat(grandchild)?.state).toBe('D');
  // sexton has called exit: once PID 1 is in the kernel's exit path, it is held there (waiting
  // for its namespace to empty), not gone. The event, not a wait, shows it stays.
  await until(() => isExiting(run.pid1), 10_000, 'PID 1 to begin its exit');
  expect(procStat(run.pid1), 'PID 1 stays until the thaw').toBeDefined();

  freezer.thaw();
  const done = await run.done();
  expect(done.exitCode).toBe(143);
  expect(procStat(grandchild)).toBeUndefined();
  // One line each, in order: the survivor at the grace period, then what SIGKILL did not end.
  const lines = done.stderr.split('\n');
  const killing = lines.findIndex((l) => l.includes(`grace period over: killing pid ${inNamespace}`));
  const couldNot = lines.findIndex((l) => line.test(l));
  expect(killing).toBeGreaterThanOrEqual(0);
  expect(couldNot).toBeGreaterThan(killing);
  expect(lines.filter((l) => l.includes('could not kill'))).toHaveLength(1);
});
