// sexton as PID 1 of a container whose /sys/fs/cgroup is its own (run in the cgroup v2 guest): a
// private cgroup namespace rooted at the container's cgroup and cgroup2 mounted over
// /sys/fs/cgroup, as runc and crun set a container up on a v2 node. /proc/self/cgroup then says
// `0::/`, and the container's memory.max, memory.events and pids.max are at the mount's root:
// sexton's OOM count and pods budget must come from there, live.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { requireCgroup2 } from '../support/cgroups';
import { compileFixtures, CompiledFixtures, MemoryCgroup } from '../support/faults';
import { statusJson } from '../support/observability';
import { requireBuilt, sextonArgv, SLOWDOWN, startPid1, until } from '../support/pid1';

const LIMIT_MIB = 64;
const PIDS_MAX = 40;
let fixtures: CompiledFixtures;
let cgroup: MemoryCgroup | undefined;

beforeAll(() => {
  requireBuilt();
  requireCgroup2();
  fixtures = compileFixtures(['hog']);
});

afterEach(async () => {
  await cgroup?.remove();
  cgroup = undefined;
});

afterAll(() => fixtures?.remove());

/**
 * argv that mounts the container's own cgroup2 at /sys/fs/cgroup (in its mount namespace) and runs
 * argv. The host's mount goes first: cgroup2 mounted again on its own root is refused (EBUSY).
 */
const ownCgroupMount = (argv: string[]) => [
  '/bin/sh', '-c', 'umount /sys/fs/cgroup && mount -t cgroup2 cgroup2 /sys/fs/cgroup && exec "$@"', 'sh', ...argv];

it('counts an OOM kill and shows the pods budget from the root of its own cgroup mount', async () => {
  cgroup = new MemoryCgroup('cgroupns', LIMIT_MIB);
  writeFileSync(path.join(cgroup.dir, 'pids.max'), String(PIDS_MAX));
  const socket = `@sexton-cgroupns.${process.pid}`;
  // One worker asks for more than the container has: the OOM killer takes it; the app goes on.
  const app = ['sh', '-c', '"$0" $1; echo worker-gone; exec sleep 120', fixtures.path('hog'), String(LIMIT_MIB + 32)];
  const run = await startPid1(ownCgroupMount(sextonArgv(['--status-socket', socket, '--', ...app])), {
    raw: true, launcher: [...cgroup.launcher(), 'unshare', '--cgroup', '--'], timeoutMs: 240_000,
  });
  await run.waitFor('worker-gone', 'stdout', 60_000);
  // The premise: seen from inside, sexton (pid 1 of its own /proc) is at its namespace's root.
  const inside = execFileSync('nsenter', ['-t', String(run.pid1), '-C', '-m', 'cat', '/proc/1/cgroup'], { encoding: 'utf8' });
  expect(inside.trim()).toBe('0::/');
  expect(execFileSync('nsenter', ['-t', String(run.pid1), '-m', 'cat', '/sys/fs/cgroup/pids.max'], { encoding: 'utf8' }).trim())
    .toBe(String(PIDS_MAX));

  const snapshot = await until(async () => {
    const s = await statusJson(socket, run.pid1);
    return s.oomKills === 1 ? s : undefined;
  }, 30_000, 'one OOM kill in the status');
  expect(cgroup.oomKills()).toBe(1);
  expect(snapshot.budget.pids).toMatchObject({ max: PIDS_MAX, version: 2 });
  expect(snapshot.budget.pids.current).toBeGreaterThanOrEqual(3);
  // The limit in the line is memory.max as read at the mount's root.
  await run.waitFor(new RegExp(`the OOM killer ended a process in sexton's memory cgroup \\(limit ${LIMIT_MIB} MiB\\); 1 OOM kill`),
    'stderr', 30_000);

  run.signal('SIGTERM');
  const result = await run.done();
  expect(result.exitCode, result.stderr).toBe(128 + 15);
}, 300_000 * SLOWDOWN);
