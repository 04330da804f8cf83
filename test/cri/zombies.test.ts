// The seed's zombie pod through CRI: the workload that ships in sexton's package starts shells
// that detach 200 short-lived processes and exit, and never waits for the orphans. Without an
// init the app is PID 1 and they stay zombies; with sexton as PID 1 none is left.
import { execa } from 'execa';
import { afterEach, expect, inject, test } from 'vitest';
import { SEXTON, sleep, until } from '../support/pid1';
import { CRI_IMAGES } from './images';
import { cri, exited, NAMESPACE, Pod, podName, untilReaped } from './pods';

const WORKLOAD = ['node', '/usr/local/lib/node_modules/sexton/dist/workload.js', 'orphans', '200'];
const COUNT_ZOMBIES = ['sh', '-c', 'grep -l "^State:.*Z" /proc/[0-9]*/status | wc -l'];

const pods: Pod[] = [];
afterEach(async () => {
  for (const pod of pods.splice(0)) await pod.remove();
});

async function zombiePod(withSexton: boolean): Promise<{ pod: Pod; app: string }> {
  const pod = await new Pod(podName(withSexton ? 'zombies-with' : 'zombies-without')).run();
  pods.push(pod);
  // `command` replaces the image's ENTRYPOINT (sexton --): the app itself is PID 1.
  const app = await pod.start(withSexton ? { name: 'app', image: CRI_IMAGES.node, args: WORKLOAD } : { name: 'app', image: CRI_IMAGES.node, command: WORKLOAD });
  const deadline = Date.now() + 20_000;
  while (!pod.log('app').includes('{"event":"orphans-created","count":200}')) {
    if (Date.now() > deadline) throw new Error(`no orphans-created line in the log:\n${pod.log('app')}`);
    await sleep(100);
  }
  // The last orphans may still be exiting at that line: wait until PID 1 holds, or has reaped, all 200.
  if (withSexton) await untilReaped(app, 200);
  else await until(async () => Number((await cri().execSync(app, COUNT_ZOMBIES, 10)).stdout.trim()) >= 200, 15_000, '200 zombies');
  return { pod, app };
}

test('without an init: 200 zombies re-parented to the app as PID 1; sexton scan on the node names their namespace, pod and container; StopContainer waits out the grace (137)', async () => {
  const { pod, app } = await zombiePod(false);
  const count = await cri().execSync(app, COUNT_ZOMBIES, 10);
  expect(count.exit_code).toBe(0);
  expect(Number(count.stdout.trim())).toBe(200);

  // The node's view: /proc of the host and the kubelet's log directories (here, the tier's).
  const scan = await execa(process.execPath, [SEXTON, 'scan', '--json', '--pods-dir', inject('containerd').podsDir], { reject: false, timeout: 30_000 });
  expect(scan.exitCode, scan.stderr).toBe(1);  // zombies found
  const groups = (JSON.parse(scan.stdout) as { groups: Record<string, unknown>[] }).groups.filter((g) => g.containerId === app);
  expect(groups).toEqual([expect.objectContaining({
    zombies: 200,
    podUid: pod.uid,
    namespace: NAMESPACE,
    pod: pod.name,
    container: 'app',
    reason: 'pid1-does-not-reap',
    cgroup: expect.stringMatching(new RegExp(`/kubepods/besteffort/pod${pod.uid}/${app}$`)),
  })]);
  const started = Date.now();
  await cri().stopContainer(app, 2);
  const ms = Date.now() - started;
  console.log(`zombie pod without sexton: StopContainer(timeout 2) took ${ms} ms`);
  expect(ms).toBeGreaterThanOrEqual(2_000);  // node as PID 1 never ends on TERM
  expect((await exited(app)).exit_code).toBe(137);
});

test('with sexton as PID 1: none left, and StopContainer is prompt with 143', async () => {
  const { pod, app } = await zombiePod(true);
  const cmdline = await cri().execSync(app, ['cat', '/proc/1/cmdline'], 10);
  expect(cmdline.stdout.split('\0').slice(1, 3)).toEqual(['/usr/local/bin/sexton', '--']);
  const count = await cri().execSync(app, COUNT_ZOMBIES, 10);
  expect(Number(count.stdout.trim())).toBe(0);
  const started = Date.now();
  await cri().stopContainer(app, 10);
  const ms = Date.now() - started;
  console.log(`zombie pod with sexton: StopContainer(timeout 10) took ${ms} ms`);
  expect(ms).toBeLessThan(5_000);
  const status = await exited(app);
  expect(status.exit_code).toBe(143);
  expect(pod.log('app')).toMatch(/sexton: exiting with 143: reaped \d+ \(200 orphans/);
  const listed = await cri().listContainers(pod.id);
  expect(listed.map((c) => [c.metadata.name, c.state])).toEqual([['app', 'CONTAINER_EXITED']]);
});
