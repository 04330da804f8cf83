// The restricted profile through CRI: Pod Security's restricted level (runAsNonRoot as uid 1000,
// allowPrivilegeEscalation false, every capability dropped, seccomp RuntimeDefault) and a
// read-only root filesystem, as the kubelet hands them to containerd. sexton runs from the
// sexton-volume image (mounted read-only at /sexton, an emulation of the image volume) on the
// Alpine-like base, whose busybox the checks use. Each feature must work, or its one line must
// say what the kernel refused (docs/operations.md lists them). The unkillable process is frozen
// from the node (cgroup v1 freezer), as in stuck.test.ts: the pod itself could not.
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, expect, inject, test } from 'vitest';
import { until } from '../support/pid1';
import { freePort } from '../support/http';
import { compileFixtures, CompiledFixtures } from '../support/faults';
import { freezeSleep65, removeFreezers, requireFreezer } from '../support/freezer';
import { procStat } from '../support/processes';
import { BASES } from '../containers/base-images';
import { volumeMount } from './images';
import { cri, exited, hostPid, Pod, podName, RESTRICTED, untilReaped } from './pods';

const IMAGE = `${BASES['alpine-musl']}:latest`;

const pods: Pod[] = [];
afterEach(async () => {
  await removeFreezers();  // thawed first: a container cannot end while its process is frozen
  for (const pod of pods.splice(0)) await pod.remove();
});

/** notify-send (test/fixtures/faults-notify-send.c), static: the Alpine-like base has no glibc. */
let tools: CompiledFixtures;
beforeAll(() => {
  tools = compileFixtures(['notify-send'], { static: true });
});
afterAll(() => tools?.remove());

const volume = () => volumeMount(inject('containerd').dir);

async function get(url: string): Promise<{ status: number; text: string }> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
  return { status: response.status, text: await response.text() };
}

test('uid 1000, no privilege escalation, no capabilities, seccomp RuntimeDefault, read-only root: every feature works', async () => {
  const [health, metrics] = [await freePort(), await freePort()];
  const pod = await new Pod(podName('restricted')).run();
  pods.push(pod);
  const command = ['/sexton/bin/sexton', '--health', `127.0.0.1:${health}`, '--metrics', `127.0.0.1:${metrics}`,
    '--drain-quiet', '0.5', '--drain-delay', '2', '--grace', '2', '--'];
  const id = await pod.start({ name: 'app', image: IMAGE, command, args: ['/app/volume-app'], mounts: volume(), restrictions: RESTRICTED });
  await pod.untilLogged('app', 'ready');
  const exec = async (argv: string[]) => cri().execSync(id, argv, 10);

  // The restrictions hold: uid 1000, no capability, no_new_privs, seccomp filtering, / read-only.
  const self = (await exec(['cat', '/proc/1/status'])).stdout;
  expect(self).toMatch(/^Uid:\s+1000\s/m);
  expect(self).toMatch(/^CapEff:\s+0+$/m);
  expect(self).toMatch(/^NoNewPrivs:\s+1$/m);
  expect(self).toMatch(/^Seccomp:\s+2$/m);
  expect((await exec(['touch', '/written'])).exit_code).not.toBe(0);

  // sexton status (as uid 1000 too): PID 1, the orphan reaped, no zombie.
  const status = await untilReaped(id, 1, '/sexton/bin/sexton');
  expect(status).toMatchObject({ pid: 1, orphansReaped: 1, zombieCount: 0 });

  // The child's oom_score_adj: above sexton's, so the OOM killer picks the app (raising needs no capability).
  const own = Number((await exec(['cat', '/proc/1/oom_score_adj'])).stdout);
  const child = Number((await exec(['cat', `/proc/${status.mainChild.pid}/oom_score_adj`])).stdout);
  expect(child).toBeGreaterThan(own);

  // /livez, /readyz and /metrics on the host's network.
  expect((await get(`http://127.0.0.1:${health}/livez`)).status).toBe(200);
  expect((await get(`http://127.0.0.1:${health}/readyz`)).status).toBe(200);
  const scraped = await get(`http://127.0.0.1:${metrics}/metrics`);
  expect(scraped.status).toBe(200);
  expect(scraped.text).toMatch(/^sexton_reaped_total\{kind="orphan"\} 1$/m);

  // sexton probe: an exec probe run as a subreaper, its tree ended on timeout.
  const probed = await exec(['/sexton/bin/sexton', 'probe', '--timeout', '3', '--', 'sh', '-c', 'exit 0']);
  expect(probed.exit_code, probed.stderr).toBe(0);
  const late = await exec(['/sexton/bin/sexton', 'probe', '--timeout', '0.5', '--', 'sleep', '30']);
  expect(late.exit_code).toBe(124);

  // The kubelet's TERM: the drain waits for quiet, then the app gets it and exits 0.
  await cri().stopContainer(id, 30);
  expect((await exited(id)).exit_code).toBe(0);
  const log = pod.log('app');
  expect(log).toContain('got TERM');
  expect(log).toMatch(/drain: forwarding the stop signal/);
  expect(log).not.toMatch(/internal error/);
  console.log(`restricted: sexton's warnings:\n${log.split('\n').filter((l) => /^sexton: .*(cannot|refused|EPERM|EACCES|not permitted)/.test(l)).join('\n') || '(none)'}`);
});

test('restricted: an app that ignores TERM is SIGKILLed at the grace period, 137', async () => {
  const pod = await new Pod(podName('restricted-grace')).run();
  pods.push(pod);
  const id = await pod.start({ name: 'app', image: IMAGE, command: ['/sexton/bin/sexton', '--grace', '1', '--'], args: ['/app/volume-app', 'ignore'], mounts: volume(), restrictions: RESTRICTED });
  await pod.untilLogged('app', 'ready');
  await cri().stopContainer(id, 30);
  expect((await exited(id)).exit_code).toBe(137);
  expect(pod.log('app')).not.toMatch(/internal error/);
});

test('restricted: --ready-when notify: /readyz is 503 until the app sends READY=1, then 200', async () => {
  const health = await freePort();
  const pod = await new Pod(podName('restricted-notify')).run();
  pods.push(pod);
  // A directory of the node's, read-only in the pod: the test says when the app may be ready.
  const go = path.join(inject('containerd').dir, 'volumes', pod.uid, 'go');
  mkdirSync(go, { recursive: true });
  const app = 'echo waiting; until [ -e /go/now ]; do sleep 0.1; done; /tools/notify-send READY=1 && exec /app/volume-app';
  const id = await pod.start({
    name: 'app', image: IMAGE, command: ['/sexton/bin/sexton', '--ready-when', 'notify', '--health', `127.0.0.1:${health}`, '--'],
    args: ['sh', '-c', app], restrictions: RESTRICTED,
    mounts: [...volume(), { container_path: '/tools', source: tools.dir, readonly: true }, { container_path: '/go', source: go, readonly: true }],
  });
  await pod.untilLogged('app', 'waiting');
  // The health server listens once the child is spawned: /livez says when it does.
  await until(async () => (await get(`http://127.0.0.1:${health}/livez`).catch(() => undefined))?.status === 200, 10_000, '/livez');
  expect((await get(`http://127.0.0.1:${health}/readyz`)).status).toBe(503);
  expect((await cri().execSync(id, ['/sexton/bin/sexton', 'status', '--ready'], 10)).exit_code).toBe(1);

  writeFileSync(path.join(go, 'now'), '');
  await pod.untilLogged('app', 'ready ');
  await until(async () => (await get(`http://127.0.0.1:${health}/readyz`)).status === 200, 5000, '/readyz 200 after READY=1');
  const ready = await cri().execSync(id, ['/sexton/bin/sexton', 'status', '--ready'], 10);
  expect(ready.exit_code, ready.stderr).toBe(0);

  await cri().stopContainer(id, 30);
  expect((await exited(id)).exit_code).toBe(0);
  const log = pod.log('app');
  expect(log).toContain('got TERM');
  expect(log).not.toMatch(/internal error|sd_notify/);
});

test('restricted: a process SIGKILL cannot end (frozen from the node) is named with its state, wchan and syscall', async () => {
  requireFreezer();
  const pod = await new Pod(podName('restricted-stuck')).run();
  pods.push(pod);
  const id = await pod.start({ name: 'app', image: IMAGE, command: ['/sexton/bin/sexton', '--grace', '1', '--'], args: ['sh', '-c', 'sleep 65 & exec sleep 66'], mounts: volume(), restrictions: RESTRICTED });
  const pid1 = await hostPid(id);
  const { pid: grandchild, freezer } = await freezeSleep65(pid1, 'cri-restricted');

  // The runtime's 4 s pass with the frozen process still there: StopContainer fails at its deadline.
  const stop = await cri().stopContainer(id, 4, 12_000).then(() => 'returned', (error: Error) => error.message);
  expect(stop).toMatch(/^StopContainer: .*deadline exceeded/i);
  const log = pod.log('app');
  console.log(`restricted stuck: ${log.split('\n').filter((l) => /could not kill|after SIGKILL/.test(l)).join('\n')}`);
  expect(log).toMatch(/could not kill pid \d+ \(sleep\): state D uninterruptible, wchan hrtimer_nanosleep, syscall clock_nanosleep, SIGKILL pending/);
  expect(log).not.toMatch(/internal error/);
  const said = /sexton: exiting with (\d+)/.exec(log);
  expect(said, log).not.toBeNull();

  freezer.thaw();
  await until(() => procStat(grandchild) === undefined, 15_000, 'the thawed process to die');
  expect((await exited(id)).exit_code).toBe(Number(said![1]));
});
