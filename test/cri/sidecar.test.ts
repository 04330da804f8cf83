// A native sidecar stopped in the kubelet's order: the main container first (StopContainer with
// the pod's grace), then, once it has exited, the sidecar with what is left of the grace, at
// least 2 s. The sidecar's app lingers on TERM (a proxy draining connections that are already
// gone). With the sidecar recipe (SEXTON_DRAIN_DELAY=0, SEXTON_GRACE=1,
// SEXTON_REMAP_EXIT=143,137) sexton ends it inside the 2 s and exits 0; with sexton's defaults
// the runtime SIGKILLs it at the deadline, 137, and sexton never reports.
import { afterEach, expect, test } from 'vitest';
import { sleep } from '../support/pid1';
import { CRI_IMAGES } from './images';
import { cri, exited, Pod, podName } from './pods';

const MAIN = ['node', '-e', 'process.on("SIGTERM", () => process.exit(0)); console.log("started"); setInterval(() => {}, 1000)'];
const PROXY = ['sh', '-c', 'trap "echo draining; sleep 5; exit 0" TERM; echo started; while :; do sleep 0.2; done'];
const RECIPE = { SEXTON_DRAIN_DELAY: '0', SEXTON_GRACE: '1', SEXTON_REMAP_EXIT: '143,137' };
/** What the kubelet gives a sidecar once the pod's grace is spent. */
const SIDECAR_TIMEOUT = 2;

const pods: Pod[] = [];
afterEach(async () => {
  for (const pod of pods.splice(0)) await pod.remove();
});

async function stopInKubeletOrder(name: string, sidecarEnv: Record<string, string>) {
  const pod = await new Pod(podName(name)).run();
  pods.push(pod);
  const main = await pod.start({ name: 'app', image: CRI_IMAGES.node, command: ['sexton', '--'], args: MAIN });
  const sidecar = await pod.start({ name: 'proxy', image: CRI_IMAGES.node, command: ['sexton', '--'], args: PROXY, env: sidecarEnv });
  const deadline = Date.now() + 20_000;
  while (!pod.log('app').includes('started') || !pod.log('proxy').includes('started')) {
    if (Date.now() > deadline) throw new Error(`not started:\n${pod.log('app')}\n${pod.log('proxy')}`);
    await sleep(50);
  }
  await cri().stopContainer(main, 3);
  expect((await exited(main)).exit_code).toBe(0);  // the main app ends cleanly on TERM
  const asked = Date.now();
  await cri().stopContainer(sidecar, SIDECAR_TIMEOUT);
  const ms = Date.now() - asked;
  const status = await exited(sidecar);
  console.log(`${name}: sidecar StopContainer(timeout ${SIDECAR_TIMEOUT}) took ${ms} ms, exit ${status.exit_code}`);
  return { ms, exitCode: status.exit_code, log: pod.log('proxy') };
}

test(`the sidecar recipe: after the main container, the sidecar's sexton exits 0 inside the ${SIDECAR_TIMEOUT} s the kubelet gives it`, async () => {
  const stop = await stopInKubeletOrder('sidecar-recipe', RECIPE);
  expect(stop.ms).toBeLessThan(SIDECAR_TIMEOUT * 1000);
  expect(stop.exitCode).toBe(0);
  expect(stop.log).toContain('sexton: received TERM: stopping grace period 1s');
  expect(stop.log).toMatch(/sexton: exiting with 0/);
});

test(`without the recipe: the sidecar outlives the ${SIDECAR_TIMEOUT} s and the runtime SIGKILLs sexton (137, no report)`, async () => {
  const stop = await stopInKubeletOrder('sidecar-default', {});
  expect(stop.ms).toBeGreaterThanOrEqual(SIDECAR_TIMEOUT * 1000);
  expect(stop.exitCode).toBe(137);
  expect(stop.log).toContain('sexton: received TERM: stopping grace period 10s');
  expect(stop.log).not.toMatch(/sexton: exiting with/);
});
