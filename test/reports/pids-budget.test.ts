// The pod's budget in `sexton status`, with sexton as a real PID 1 in a pids cgroup of the test's
// own (v1 here; v2 in the guest of npm run test:cgroup2, which runs this file too): pids.current
// and pids.max as the kernel counts them, and a process left behind by an exec into the namespace
// (what a timed-out probe leaves), flagged with its age and ended by the stop sequence.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { PidsCgroup } from '../support/cgroups';
import { namespacePid, sample, status, statusJson } from '../support/observability';
import { freePort } from '../support/http';
import { requireBuilt, startPid1, SLOWDOWN, until } from '../support/pid1';
import { hostDescendants, procStat } from '../support/processes';
import { childrenOf } from '../../src/harness/namespace';

beforeAll(requireBuilt);

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}
let cgroup: PidsCgroup | undefined;
afterEach(async () => {
  await cgroup?.remove();
  cgroup = undefined;
});

it('reports pids.current and pids.max, and flags a leftover outside the main child with its age', async () => {
  cgroup = new PidsCgroup('health-budget', 300);
  const socket = `@sexton-health-budget.${process.pid}`;
  const run = await startPid1(['--status-socket', socket, '--', 'sh', '-c', 'echo app-up; exec sleep 30'], { launcher: cgroup.wrap([]) });
  await run.waitFor('app-up');
  // An exec into the pod whose command outlives it: its child is re-parented to PID 1.
  execFileSync('nsenter', ['-t', String(run.pid1), '-p', '--', 'sh', '-c', 'setsid sleep 61 < /dev/null > /dev/null 2>&1 &']);
  const leftover = await until(() => childrenOf(run.pid1).find((pid) => cmdline(pid) === 'sleep\u000061\u0000'), 10_000, 'the leftover under PID 1');

  const s = await until(async () => {
    const snap = await statusJson(socket, run.pid1);
    return snap.budget.outsiders.count === 1 ? snap : undefined;
  }, 10_000, 'one outsider in the status');
  expect(s.budget.pids).toMatchObject({ max: 300, version: cgroup.version });
  // The kernel's count, sexton's threads and the app's processes included, moves a little
  // between the two reads (threads of node come and go): near, not equal.
  expect(Math.abs(s.budget.pids.current - cgroup.current())).toBeLessThanOrEqual(4);
  expect(s.budget.pids.current).toBeGreaterThanOrEqual(hostDescendants(run.pid1).length + 1);
  expect(s.budget.outsiders.shown).toEqual([{ pid: namespacePid(leftover), command: 'sleep 61', ageSeconds: expect.any(Number) }]);
  expect(s.budget.outsiders.shown[0].ageSeconds).toBeLessThan(60);

  const table = await status(['--socket', socket, '--pid', String(run.pid1)]);
  expect(table.stdout).toMatch(new RegExp(`^pids\\s+\\d+ of 300 \\(cgroup v${cgroup.version}; every task counts, zombies too\\)$`, 'm'));
  expect(table.stdout).toMatch(/^not the main child's\s+1 process\(es\)/m);
  expect(table.stdout).toMatch(new RegExp(`^  ! pid ${namespacePid(leftover)} \\(sleep 61\\), up \\d+ s, outside the main child's tree$`, 'm'));

  run.signal('SIGTERM');
  await run.done();
  expect(procStat(leftover)).toBeUndefined();
}, 40_000 * SLOWDOWN);

it('shows the budget as metrics', async () => {
  cgroup = new PidsCgroup('health-metrics', 250);
  const port = await freePort();
  const run = await startPid1(['--metrics', `127.0.0.1:${port}`, '--', 'sleep', '30'], { launcher: cgroup.wrap([]) });
  const text = await until(async () => {
    const r = await fetch(`http://127.0.0.1:${port}/metrics`).then((x) => x.text()).catch(() => undefined);
    return r?.includes('sexton_pids_max') ? r : undefined;
  }, 15_000, 'metrics');
  expect(sample(text, 'sexton_pids_max')).toBe(250);
  expect(sample(text, 'sexton_pids_current')).toBeGreaterThanOrEqual(2);
  expect(sample(text, 'sexton_outside_processes')).toBe(0);
  run.signal('SIGTERM');
  await run.done();
}, 40_000 * SLOWDOWN);
