// `sexton scan` on a cgroup v2 node laid out as the kubelet's systemd driver lays it out, seen
// from a pod with a private cgroup namespace (as a DaemonSet's pod sees it). Run in the cgroup v2
// guest. Other pods' cgroups are then relative paths above the scanner's own root
// (`0::/../../kubepods-burstable-pod<uid>.slice/cri-containerd-<id>.scope`): the zombies' holder
// must still be attributed to its pod and container.
import { execa } from 'execa';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, rmdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { requireCgroup2 } from '../support/cgroups';
import { requireBuilt, startPid1, SEXTON, SLOWDOWN, until } from '../support/pid1';
import { hostDescendants, procStat } from '../support/processes';
import { childrenOf } from '../../src/harness/namespace';

const BURSTABLE = `/sys/fs/cgroup/kubepods.slice/kubepods-burstable.slice`;
const made: string[] = [];

/** A pod's slice and one container's scope under it, as the systemd driver names them. */
function podScope(uid: string, id: string): string {
  const scope = path.join(BURSTABLE, `kubepods-burstable-pod${uid.replace(/-/g, '_')}.slice`, `cri-containerd-${id}.scope`);
  for (let dir = scope; dir !== '/sys/fs/cgroup'; dir = path.dirname(dir)) {
    if (!made.includes(dir)) made.push(dir);
  }
  mkdirSync(scope, { recursive: true });
  return scope;
}

beforeAll(() => {
  requireBuilt();
  requireCgroup2();
});

afterAll(() => {
  // Deepest first; each scope's members are this test's (cgroup.kill, then rmdir).
  for (const dir of made.sort((a, b) => b.length - a.length)) {
    try {
      if (dir.endsWith('.scope')) writeFileSync(path.join(dir, 'cgroup.kill'), '1');
      rmdirSync(dir);
    } catch {
      // a member still being torn down: the guest goes away with it
    }
  }
});

const join = (scope: string) => ['/bin/sh', '-c', `echo $$ > ${scope}/cgroup.procs && exec "$@"`, 'sh'];

it('attributes a zombie holder to its pod and container through a private cgroup namespace', async () => {
  const uid = randomUUID();
  const id = randomBytes(32).toString('hex');
  const app = podScope(uid, id);
  const scanner = podScope(randomUUID(), randomBytes(32).toString('hex'));
  // A PID 1 that never reaps (sh), holding one zombie.
  const run = await startPid1(['sh', '-c', 'sleep 0 & exec sleep 60.3'], { raw: true, launcher: join(app), timeoutMs: 120_000 });
  await until(() => childrenOf(run.pid1).some((child) => procStat(child)?.state === 'Z'), 10_000, 'the zombie');
  expect(hostDescendants(run.pid1).length).toBeGreaterThan(0);

  const seen = await execa('/bin/sh', ['-c', `echo $$ > ${scanner}/cgroup.procs && exec unshare --cgroup cat /proc/${run.pid1}/cgroup`]);
  const relative = `0::/../../kubepods-burstable-pod${uid.replace(/-/g, '_')}.slice/cri-containerd-${id}.scope`;
  expect(seen.stdout.trim()).toBe(relative);

  const scan = await execa('/bin/sh', ['-c', `echo $$ > ${scanner}/cgroup.procs && exec unshare --cgroup "$@"`, 'sh',
    process.execPath, SEXTON, 'scan', '--json', '--min-age', '0'], { reject: false, timeout: 60_000 * SLOWDOWN });
  expect(scan.exitCode, scan.stderr).not.toBe(2);
  const group = JSON.parse(scan.stdout).groups.find((g: any) => g.parent.pid === run.pid1);
  expect(group, scan.stdout.slice(0, 800)).toMatchObject({ zombies: 1, containerId: id, runtime: 'containerd', podUid: uid });
  run.signal('SIGKILL');
  await run.done();
});
