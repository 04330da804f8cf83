// A pod stuck in Terminating on the kubelet's path: sexton is PID 1 of a container whose
// grandchild the test freezes (cgroup v1 freezer), so SIGKILL cannot end it. StopContainer
// then fails at its deadline, as the kubelet reports "DeadlineExceeded": sexton has named the
// process in the container's log and left, but the container stays running until the thaw.
// Meanwhile `sexton scan --stuck` on the node names the process with its container and pod.
import { execa } from 'execa';
import { afterEach, beforeAll, expect, inject, test } from 'vitest';
import { freezeSleep65, removeFreezers, requireFreezer } from '../support/freezer';
import { SEXTON, until } from '../support/pid1';
import { procStat } from '../support/processes';
import { CRI_IMAGES } from './images';
import { cri, exited, hostPid, NAMESPACE, Pod, podName } from './pods';

/** The runtime's grace (StopContainer's timeout) and the call's own deadline. */
const TIMEOUT = 4;
const DEADLINE_MS = 12_000;

const pods: Pod[] = [];
beforeAll(requireFreezer);
afterEach(async () => {
  await removeFreezers();  // thawed first: the container cannot end while its process is frozen
  for (const pod of pods.splice(0)) await pod.remove();
});

test('a frozen process: StopContainer exceeds its deadline, sexton named the process and left, the scan names it with container and pod; the thaw ends the container with sexton\'s code', async () => {
  const pod = await new Pod(podName('stuck')).run();
  pods.push(pod);
  const app = await pod.start({ name: 'app', image: CRI_IMAGES.node, env: { SEXTON_GRACE: '1' }, args: ['sh', '-c', 'sleep 65 & exec sleep 66'] });
  const pid1 = await hostPid(app);
  const { pid: grandchild, freezer } = await freezeSleep65(pid1, 'cri');

  const asked = Date.now();
  const stop = await cri().stopContainer(app, TIMEOUT, DEADLINE_MS).then(() => 'returned', (error: Error) => error.message);
  console.log(`cri stuck: StopContainer(timeout ${TIMEOUT}) ended after ${Date.now() - asked} ms: ${stop}`);
  expect(stop).toMatch(/^StopContainer: .*deadline exceeded/i);
  const log = pod.log('app');
  expect(log).toMatch(/could not kill pid \d+ \(sleep\): state D uninterruptible, wchan hrtimer_nanosleep, syscall clock_nanosleep, SIGKILL pending/);
  expect(log).toContain('processes are still there after SIGKILL (uninterruptible?): exiting anyway');
  const said = /sexton: exiting with (\d+)/.exec(log);
  expect(said, log).not.toBeNull();
  // sexton has left; the container has not: its PID namespace waits for the frozen process.
  expect(procStat(grandchild)?.state).toBe('D');
  expect((await cri().containerStatus(app)).state).toBe('CONTAINER_RUNNING');

  const scan = await execa(process.execPath, [SEXTON, 'scan', '--stuck', '--json', '--min-age', '0.3', '--pods-dir', inject('containerd').podsDir], { reject: false, timeout: 30_000 });
  expect(scan.exitCode, scan.stderr).toBe(1);
  expect(JSON.parse(scan.stdout).stuck.find((s: { pid: number }) => s.pid === grandchild)).toMatchObject({
    state: 'D', wchan: 'hrtimer_nanosleep', killPending: true, containerId: app, podUid: pod.uid, namespace: NAMESPACE, pod: pod.name, container: 'app',
  });

  freezer.thaw();
  await until(() => procStat(grandchild) === undefined, 15_000, 'the thawed process to die');
  expect((await exited(app)).exit_code).toBe(Number(said![1]));
  expect(pod.log('app').match(/could not kill/g)).toHaveLength(1);
});
