// `sexton status` inside a hardened container: a read-only root filesystem with no writable
// /run or /tmp (`podman run --read-only --read-only-tmpfs=false`, like Kubernetes'
// readOnlyRootFilesystem: true). It used to warn at start and exit 2 there, which made the
// README's liveness probe restart-loop the pod.
import { afterEach, expect, inject, test } from 'vitest';
import { images, logs, removeAll, start, waitForLog } from './containers';
import { podman } from './podman';

afterEach(removeAll);

function statusIn(name: string, args: string[], user?: string) {
  return podman(inject('engine'), ['exec', ...(user ? ['--user', user] : []), name, 'sexton', 'status', ...args], { reject: false });
}

test('read-only root filesystem, no writable /run or /tmp: status answers and the probe passes; other uids are refused', async () => {
  const name = await start(images().node, ['node', '/apps/cooperative.mjs'], { runFlags: ['--read-only', '--read-only-tmpfs=false'] });
  await waitForLog(name, 'cooperative: ready');
  // Nothing in the container is writable: sexton has no file to create.
  const write = await podman(inject('engine'), ['exec', name, 'sh', '-c', 'touch /run/x || touch /tmp/x || touch /x'], { reject: false });
  expect(write.exitCode).not.toBe(0);

  const probe = await statusIn(name, ['--max-zombies', '100']);  // the README's liveness probe
  expect(probe.exitCode, probe.stderr).toBe(0);
  expect(probe.stdout).toMatch(/^sexton\s+\S+, pid 1 \(init\), up \d+ s, running$/m);
  const json = await statusIn(name, ['--json']);
  expect(JSON.parse(json.stdout)).toMatchObject({ pid: 1, role: 'init', mainChild: { command: 'node /apps/cooperative.mjs' } });

  const other = await statusIn(name, [], '65534');
  expect(other.exitCode).toBe(4);
  expect(other.stderr.trim()).toBe("sexton status: sexton refused to answer: uid 65534 may not ask: only root and sexton's own uid 0 may");
  // No warning at start about a place to listen.
  expect(await logs(name)).not.toMatch(/status socket/);
});
