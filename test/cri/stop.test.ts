// StopContainer as the kubelet calls it, with the pod's terminationGracePeriodSeconds as its
// timeout: containerd sends the stop signal, waits that long, then SIGKILLs. sexton's drain
// delay and grace period fit inside it, and the exit code the runtime reports is sexton's;
// with tini as PID 1 an app that ignores TERM is killed by the runtime at the deadline.
import { afterEach, expect, test } from 'vitest';
import { CRI_IMAGES, tiniStatic } from './images';
import { cri, exited, Pod, podName } from './pods';
import { inject } from 'vitest';
import { sleep } from '../support/pid1';

/** terminationGracePeriodSeconds of the pods here. */
const GRACE = 6;
/** An app that ignores TERM (a worker stuck in a job, say). */
const STUBBORN = ['sh', '-c', 'trap "" TERM; echo started; while :; do sleep 0.2; done'];
/** An app that ends on TERM with an exit code of its own after a second of cleanup. */
const TIDY = ['sh', '-c', 'trap "sleep 1; exit 3" TERM; echo started; while :; do sleep 0.2; done'];

const pods: Pod[] = [];
afterEach(async () => {
  for (const pod of pods.splice(0)) await pod.remove();
});

/** sexton with its flags, as deployment.yaml gives them: `command` replaces the ENTRYPOINT. */
const sexton = (...flags: string[]) => ['sexton', ...flags, '--'];

async function stopTimed(name: string, spec: { command: string[]; args: string[]; mounts?: { container_path: string; source: string; readonly: boolean }[] }) {
  const pod = await new Pod(podName(name)).run();
  pods.push(pod);
  const app = await pod.start({ name: 'app', image: CRI_IMAGES.node, ...spec });
  const deadline = Date.now() + 10_000;
  while (!pod.log('app').includes('started')) {
    if (Date.now() > deadline) throw new Error(`the app did not start:\n${pod.log('app')}`);
    await sleep(50);
  }
  const started = Date.now();
  await cri().stopContainer(app, GRACE);
  const ms = Date.now() - started;
  const status = await exited(app);
  console.log(`${name}: StopContainer(timeout ${GRACE}) took ${ms} ms, exit ${status.exit_code}`);
  return { ms, status, log: pod.log('app') };
}

test(`an app that ignores TERM: sexton's 1 s drain and 2 s grace end it inside the ${GRACE} s the runtime gives; tini waits for the runtime's SIGKILL`, async () => {
  const withSexton = await stopTimed('stop-sexton', { command: sexton('--drain-delay', '1', '--grace', '2'), args: STUBBORN });
  expect(withSexton.ms).toBeGreaterThanOrEqual(3000);
  expect(withSexton.ms).toBeLessThan(GRACE * 1000);
  const said = /sexton: exiting with (\d+)/.exec(withSexton.log);
  expect(said, withSexton.log).not.toBeNull();
  expect(withSexton.status.exit_code).toBe(Number(said![1]));
  expect(withSexton.status.exit_code).toBe(137);
  expect(withSexton.log).toMatch(/grace period over: killing pid \d+ \(sh -c trap "" TERM/);

  const tini = await stopTimed('stop-tini', {
    command: ['/tini/tini', '--'],
    args: STUBBORN,
    mounts: [{ container_path: '/tini', source: tiniStatic(inject('containerd').dir), readonly: true }],
  });
  expect(tini.ms).toBeGreaterThanOrEqual(GRACE * 1000);
  expect(tini.status.exit_code).toBe(137);
  console.log(`ignoring TERM, StopContainer → exit: sexton ${withSexton.ms} ms, tini ${tini.ms} ms`);
});

test('an app that ends on TERM with its own code: the drain delay, then its 3, as ContainerStatus reports', async () => {
  const withSexton = await stopTimed('stop-tidy', { command: sexton('--drain-delay', '1', '--grace', '3'), args: TIDY });
  expect(withSexton.ms).toBeGreaterThanOrEqual(2000);
  expect(withSexton.ms).toBeLessThan(GRACE * 1000);
  expect(withSexton.status.exit_code).toBe(3);
  expect(withSexton.log).toMatch(/sexton: exiting with 3/);
});
