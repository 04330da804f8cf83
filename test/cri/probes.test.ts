// Exec probes as the kubelet runs them: ExecSync with the probe's timeoutSeconds. A probe whose
// command outlives the timeout is killed by the runtime, but only the process it started: its
// child is orphaned, and an orphan of a process exec'd into a container goes to the container's
// PID 1 (its parent, the exec, has no parent inside the namespace). Without an init those pile
// up as zombies once they end; with sexton as PID 1 they are reaped. With `sexton probe` as the
// probe's command, nothing is orphaned at all, whatever PID 1 does: the probe ends its own tree.
import { afterEach, expect, test } from 'vitest';
import { CRI_IMAGES } from './images';
import { cri, exited, Pod, podName } from './pods';
import { until } from '../support/pid1';

const APP = ['node', '-e', 'setInterval(() => {}, 1000)'];
/** A probe that hangs past its 1 s timeout on a child that ends 2 s after it started. */
const HUNG_PROBE = ['sh', '-c', 'sleep 2 & wait'];
const PROBES = 5;
/** Every process of the container but PID 1 and this shell: pid, state and name, one a line. */
const OTHERS = ['sh', '-c', 'for d in /proc/[0-9]*; do p=${d#/proc/}; [ $p = 1 ] || [ $p = $$ ] || { read -r s < $d/stat && echo "$s"; }; done; true'];
/** The parent pid of every zombie of the container, one a line. */
const ZOMBIE_PARENTS = ['sh', '-c', 'for f in /proc/[0-9]*/status; do grep -q "^State:.*Z" $f && sed -n "s/^PPid:\\s*//p" $f; done; true'];

const pods: Pod[] = [];
afterEach(async () => {
  for (const pod of pods.splice(0)) await pod.remove();
});

async function probedPod(withSexton: boolean): Promise<{ pod: Pod; app: string; zombieParents: string[] }> {
  const pod = await new Pod(podName(withSexton ? 'probes-with' : 'probes-without')).run();
  pods.push(pod);
  const app = await pod.start(withSexton ? { name: 'app', image: CRI_IMAGES.node, args: APP } : { name: 'app', image: CRI_IMAGES.node, command: APP });
  const probes = await Promise.allSettled(Array.from({ length: PROBES }, () => cri().execSync(app, HUNG_PROBE, 1)));
  for (const probe of probes) {
    expect(probe.status).toBe('rejected');
    expect(String((probe as PromiseRejectedResult).reason)).toMatch(/timeout 1s exceeded|deadline exceeded/);
  }
  // Until every orphaned `sleep 2` has ended: all zombies under a PID 1 that never reaps, all
  // gone under sexton (a zombie seen for an instant before sexton's reap would be no leak).
  const sleeps = async () => (await cri().execSync(app, OTHERS, 10)).stdout.split('\n').filter((s) => s.includes(' (sleep) '));
  await until(async () => {
    const left = await sleeps();
    return withSexton ? left.length === 0 : left.length === PROBES && left.every((s) => s.includes(' (sleep) Z '));
  }, 15_000, 'the orphaned sleeps to end');
  const zombies = await cri().execSync(app, ZOMBIE_PARENTS, 10);
  return { pod, app, zombieParents: zombies.stdout.split('\n').filter(Boolean) };
}

test(`without an init: ${PROBES} timed-out probes leave ${PROBES} zombies with PID 1, and StopContainer takes the full grace (137)`, async () => {
  const { app, zombieParents } = await probedPod(false);
  expect(zombieParents).toEqual(Array(PROBES).fill('1'));
  const started = Date.now();
  await cri().stopContainer(app, 2);
  const ms = Date.now() - started;
  console.log(`probes without an init: StopContainer(timeout 2) took ${ms} ms`);
  expect(ms).toBeGreaterThanOrEqual(2000);
  expect((await exited(app)).exit_code).toBe(137);
});

test('with sexton as PID 1: the probes\' orphans are reaped, and StopContainer is prompt (143)', async () => {
  const { pod, app, zombieParents } = await probedPod(true);
  expect(zombieParents).toEqual([]);
  const started = Date.now();
  await cri().stopContainer(app, 10);
  const ms = Date.now() - started;
  console.log(`probes with sexton: StopContainer(timeout 10) took ${ms} ms`);
  expect(ms).toBeLessThan(5000);
  expect((await exited(app)).exit_code).toBe(143);
  // Orphans are named within a budget (native/reaper.cc): some may go unnamed, none misnamed.
  expect(pod.log('app')).toMatch(new RegExp(`sexton: exiting with 143: reaped ${PROBES + 1} \\(${PROBES} orphans: sleep×\\d+( \\d+ unnamed)?\\)`));
});

test(`sexton probe as the probe's command, under a PID 1 that never reaps: each probe ends its hung tree at its own --timeout and fails with 124; nothing is left, running or zombie`, async () => {
  const pod = await new Pod(podName('probes-sexton-probe')).run();
  pods.push(pod);
  const app = await pod.start({ name: 'app', image: CRI_IMAGES.node, command: APP });
  // A child that would outlive any probe: if the tree were not ended, it would still run.
  const probe = ['sexton', 'probe', '--timeout', '1', '--kill-after', '0.5', '--', 'sh', '-c', 'sleep 60 & wait'];
  const results = await Promise.all(Array.from({ length: PROBES }, () => cri().execSync(app, probe, 5)));
  for (const result of results) {
    expect(result.exit_code, result.stderr).toBe(124);
    expect(result.stderr).toMatch(/sexton probe: 'sh -c sleep 60 & wait' did not finish within 1 s: terminating its process tree/);
  }
  const others = await cri().execSync(app, OTHERS, 10);
  expect(others.stdout.split('\n').filter(Boolean)).toEqual([]);
});
