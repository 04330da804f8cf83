// The kubelet's httpGet probes against sexton's --health, through a pod on the node's network:
// a probe costs the container no process at all (an exec probe costs one or more each), and
// /readyz turns 503 the moment StopContainer sends TERM, while /livez stays 200 and the app
// still serves out the drain delay.
import { execa } from 'execa';
import { afterEach, expect, test } from 'vitest';
import { freePort, httpGet } from '../support/http';
import { sleep } from '../support/pid1';
import { CRI_IMAGES } from './images';
import { cri, exited, hostPid, Pod, podName } from './pods';

const APP = ['node', '-e', 'console.log("started"); setInterval(() => {}, 1000)'];
const DRAIN = 3;
const PROBES = 20;

const pods: Pod[] = [];
afterEach(async () => {
  for (const pod of pods.splice(0)) await pod.remove();
});

/**
 * The last pid handed out in the container's PID namespace, read by a `cat` the host's nsenter
 * forks into it: each read takes exactly one pid. (An ExecSync would not do: runc's init is a Go
 * program whose threads take pids in the namespace too, 5 to 7 of them, never the same count.)
 */
async function lastPid(app: string): Promise<number> {
  const read = await execa('nsenter', ['--target', String(await hostPid(app)), '--pid', '--', 'cat', '/proc/sys/kernel/ns_last_pid'], { timeout: 10_000 });
  return Number(read.stdout.trim());
}

async function until200(port: number, path: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while ((await httpGet(port, path).catch(() => undefined))?.code !== 200) {
    if (Date.now() > deadline) throw new Error(`${path} never answered 200`);
    await sleep(50);
  }
}

test(`httpGet probes on /readyz and /livez make no process; /readyz is 503 from StopContainer's TERM while the ${DRAIN} s drain keeps the app running`, async () => {
  const port = await freePort();
  const pod = await new Pod(podName('health')).run();
  pods.push(pod);
  const command = ['sexton', '--health', `127.0.0.1:${port}`, '--drain-delay', String(DRAIN), '--grace', '2', '--'];
  const app = await pod.start({ name: 'app', image: CRI_IMAGES.node, command, args: APP });
  await until200(port, '/readyz');

  // Nothing else in the container makes a process: two reads in a row are one pid apart.
  let before = await lastPid(app);
  expect((await lastPid(app)) - before).toBe(1);
  before += 1;
  for (let i = 0; i < PROBES; i++) {
    expect(await httpGet(port, '/readyz')).toEqual({ code: 200, body: 'ok: the main child runs\n' });
    expect(await httpGet(port, '/livez')).toEqual({ code: 200, body: 'ok\n' });
  }
  expect((await lastPid(app)) - before, `${PROBES * 2} httpGet probes made processes`).toBe(1);
  // The same count sees an exec probe: one `true` between two reads.
  before = await lastPid(app);
  expect((await cri().execSync(app, ['true'], 10)).exit_code).toBe(0);
  const execPids = (await lastPid(app)) - before - 1;
  console.log(`cri health: ${PROBES * 2} httpGet probes took 0 pids in the container; one exec probe took ${execPids}`);
  expect(execPids).toBeGreaterThanOrEqual(1);

  const asked = Date.now();
  const stopping = cri().stopContainer(app, DRAIN + 5);
  let notReadyMs = -1;
  while (notReadyMs < 0 && Date.now() - asked < DRAIN * 1000) {
    const ready = await httpGet(port, '/readyz');
    if (ready.code === 503) {
      notReadyMs = Date.now() - asked;
      expect(ready.body).toBe('not ready: stopping: the stop signal arrived\n');
    } else await sleep(20);
  }
  console.log(`cri health: /readyz 503 ${notReadyMs} ms after StopContainer was called`);
  expect(notReadyMs, `/readyz still 200 ${DRAIN} s after StopContainer`).toBeGreaterThanOrEqual(0);
  // Inside the drain: the app runs and the container is alive; only readiness changed.
  expect(await httpGet(port, '/livez')).toEqual({ code: 200, body: 'ok\n' });
  expect((await cri().containerStatus(app)).state).toBe('CONTAINER_RUNNING');
  expect(pod.log('app')).not.toMatch(/forwarding|main child \(pid \d+\) (exited|was killed)/);

  await stopping;
  const stoppedMs = Date.now() - asked;
  expect(stoppedMs).toBeGreaterThanOrEqual(DRAIN * 1000);
  expect((await exited(app)).exit_code).toBe(143);
  expect(pod.log('app')).toMatch(new RegExp(`received TERM: stopping after a ${DRAIN}s drain delay`));
});
