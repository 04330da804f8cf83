// A pod stuck in Terminating, for real: in a podman pod, a container runs sexton as its init and
// an app whose child the test freezes (cgroup v1 freezer). On `podman stop`, sexton names the
// frozen process in the container's log and exits within its bound, but the container stays
// until the thaw; meanwhile `sexton scan --stuck` on the host attributes the process to that
// container and that pod.
import { execa } from 'execa';
import { afterEach, beforeAll, expect, inject, test } from 'vitest';
import { freezeSleep65, removeFreezers, requireFreezer } from '../support/freezer';
import { requireBuilt, SEXTON, until } from '../support/pid1';
import { isExiting, procStat } from '../support/processes';
import { images, logs, removeAll, waitForLog } from './containers';
import { podman } from './podman';

const engine = () => inject('engine');
const pods = new Set<string>();

beforeAll(() => {
  requireBuilt();
  requireFreezer();
});
afterEach(async () => {
  // Thawed first: a container cannot be removed while its frozen process lives.
  await removeFreezers();
  await removeAll();
  for (const pod of pods) await podman(engine(), ['pod', 'rm', '-f', '-t', '0', pod], { reject: false });
  pods.clear();
});
const inspect = async (name: string, format: string, kind: 'container' | 'pod' = 'container') =>
  (await podman(engine(), [kind, 'inspect', '--format', format, name])).stdout.trim();

test('a frozen process in a pod: named in the log, the container stays until the thaw, the scan names container and pod', async () => {
  const pod = `sexton-test-stuck-pod-${process.pid}`;
  pods.add(pod);
  await podman(engine(), ['pod', 'create', '--network=none', '--name', pod], { timeoutMs: 120_000 });
  const podId = await inspect(pod, '{{.Id}}', 'pod');
  const name = `sexton-test-stuck-${process.pid}`;
  await podman(engine(), ['run', '-d', '--pod', pod, '--name', name, '-e', 'SEXTON_GRACE=1', images().node, 'sh', '-c', 'sleep 65 & exec sleep 66']);
  const id = await inspect(name, '{{.Id}}');
  const pid1 = Number(await inspect(name, '{{.State.Pid}}'));
  const { pid: grandchild, freezer } = await freezeSleep65(pid1, 'container');

  const stopping = podman(engine(), ['stop', '-t', '10', name], { reject: false, timeoutMs: 120_000 });
  const log = await waitForLog(name, 'exiting with 143', 30_000);
  expect(log).toMatch(/could not kill pid \d+ \(sleep\): state D uninterruptible, wchan hrtimer_nanosleep, syscall clock_nanosleep, SIGKILL pending/);
  expect(log).toContain('processes are still there after SIGKILL (uninterruptible?): exiting anyway');

  // sexton has left (its exit waits in the kernel for its namespace to empty); the container has
  // not: its PID namespace waits for the frozen process.
  await until(() => isExiting(pid1), 15_000, 'sexton to exit');
  expect(procStat(grandchild)?.state).toBe('D');
  expect(await inspect(name, '{{.State.Status}}')).not.toBe('exited');

  const scan = await execa(process.execPath, [SEXTON, 'scan', '--stuck', '--json', '--min-age', '0.3'], { reject: false, timeout: 30_000 });
  expect(scan.exitCode, String(scan.stderr)).toBe(1);
  expect(JSON.parse(String(scan.stdout)).stuck.find((s: any) => s.pid === grandchild)).toMatchObject({
    state: 'D', wchan: 'hrtimer_nanosleep', killPending: true, containerId: id, runtime: 'podman', podUid: podId,
  });

  freezer.thaw();
  await stopping;
  await until(() => procStat(grandchild) === undefined, 15_000, 'the thawed process to die');
  expect(await inspect(name, '{{.State.Status}}')).toBe('exited');
  expect(await inspect(name, '{{.State.ExitCode}}')).toBe('143');
  expect((await logs(name)).match(/could not kill/g)).toHaveLength(1);
});
