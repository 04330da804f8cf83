// The restricted profile through CRI: Pod Security's restricted level (runAsNonRoot as uid 1000,
// allowPrivilegeEscalation false, every capability dropped, seccomp RuntimeDefault) and a
// read-only root filesystem, as the kubelet hands them to containerd. sexton runs from the
// sexton-volume image (mounted read-only at /sexton, an emulation of the image volume) on the
// Alpine-like base, whose busybox the checks use. Each feature must work, or its one line must
// say what the kernel refused (docs/operations.md lists them).
import { afterEach, expect, inject, test } from 'vitest';
import { sleep } from '../support/pid1';
import { freePort } from '../support/http';
import { BASES } from '../containers/base-images';
import { volumeMount } from './images';
import { cri, exited, Pod, podName, RESTRICTED } from './pods';

const IMAGE = `${BASES['alpine-musl']}:latest`;

const pods: Pod[] = [];
afterEach(async () => {
  for (const pod of pods.splice(0)) await pod.remove();
});

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
  let status: { pid: number; orphansReaped: number; zombieCount: number; mainChild: { pid: number } };
  const deadline = Date.now() + 10_000;
  for (;;) {
    const answer = await exec(['/sexton/bin/sexton', 'status', '--json']);
    expect(answer.exit_code, answer.stderr).toBe(0);
    status = JSON.parse(answer.stdout);
    if (status.orphansReaped >= 1 || Date.now() > deadline) break;
    await sleep(100);
  }
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
