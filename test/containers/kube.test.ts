// examples/kubernetes in a real engine: `podman kube play` runs each manifest (see kube.ts for
// the few changes podman needs), and each pod is stopped as the kubelet would, with its own
// terminationGracePeriodSeconds. Exit codes, stop timing against sexton's drain delay and grace
// period, and zombie counts are asserted.
import { afterEach, expect, test } from 'vitest';
import { exec, logs, untilReaped, waitForLog } from './containers';
import { until } from '../support/pid1';
import { freePort } from '../support/http';
import { exitCodeOf, localManifest, play, removePods, stopPod, zombieCount } from './kube';

afterEach(removePods);

async function get(port: number): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(5000) });
  return response.text();
}

test('pod.yaml: sexton is PID 1, the app serves on the published port; pod stop -t 30 is prompt, exit 0', async () => {
  const port = await freePort();
  const manifest = localManifest('pod.yaml', { hostPort: port });
  expect(await play(manifest)).toEqual(['sexton-pod']);
  const app = 'sexton-pod-app';
  await waitForLog(app, 'server: listening on 8080');
  expect(await get(port)).toMatch(/^hello from pid \d+/);
  const cmdline = (await exec(app, ['cat', '/proc/1/cmdline'])).split('\0');
  expect(cmdline.slice(1, 4)).toEqual(['/usr/local/bin/sexton', '--', 'node']);

  const stopped = await stopPod('sexton-pod', manifest.grace['sexton-pod']);
  console.log(`pod.yaml: pod stop -t ${manifest.grace['sexton-pod']} took ${Math.round(stopped.durationMs)} ms`);
  expect(stopped.durationMs).toBeLessThan(5_000);  // the app closes at once; nothing waits for a grace period
  expect(await exitCodeOf(app)).toBe(0);
  const output = await logs(app);
  expect(output).toMatch(/server: closed/);
  expect(output).toMatch(/sexton: exiting with 0: reaped 1 \(0 orphans\)/);
});

test('deployment.yaml (one replica): the stop waits out the 5 s drain delay, well inside the 20 s grace; exit 0', async () => {
  const port = await freePort();
  const manifest = localManifest('deployment.yaml', { hostPort: port });
  const [pod] = await play(manifest);
  expect(pod).toBe('example-node-app-pod-0');
  const app = `${pod}-app`;
  await waitForLog(app, 'server: listening on 8080');
  expect(await get(port)).toMatch(/^hello from pid \d+/);

  // podman stops the pod's infra container (its network) at once, so unlike in Kubernetes no
  // request reaches the app during the drain delay here: only its timing is asserted.
  const grace = manifest.grace['example-node-app'];
  expect(grace).toBe(30);
  const stopped = await stopPod(pod, grace);
  console.log(`deployment.yaml: pod stop -t ${grace} took ${Math.round(stopped.durationMs)} ms (drain delay 5 s, grace 20 s)`);
  expect(stopped.durationMs).toBeGreaterThanOrEqual(5_000);
  expect(stopped.durationMs).toBeLessThan(5_000 + 10_000);  // the app closes at once after the drain; grace is 20 s
  expect(await exitCodeOf(app)).toBe(0);
  const output = await logs(app);
  expect(output).toMatch(/sexton: received TERM: stopping after a 5s drain delay, grace period 20s/);
  expect(output).toMatch(/server: SIGTERM, closing[\s\S]*server: closed/);
  expect(output).toMatch(/sexton: exiting with 0/);
});

test('zombie-pod.yaml: 200 zombies without sexton until the kill at 5 s (137); 0 with it, and a prompt stop (143)', async () => {
  const manifest = localManifest('zombie-pod.yaml');
  const pods = await play(manifest);
  expect(pods.sort()).toEqual(['zombie-pod-with-sexton', 'zombie-pod-without-sexton']);
  for (const pod of pods) await waitForLog(`${pod}-app`, '{"event":"orphans-created","count":200}');
  // The last orphans may still be exiting at that line: wait for each PID 1 to have all 200.
  await until(async () => await zombieCount('zombie-pod-without-sexton-app') >= 200, 15_000, '200 zombies');
  await untilReaped('zombie-pod-with-sexton-app', 200);
  expect(await zombieCount('zombie-pod-without-sexton-app')).toBe(200);
  expect(await zombieCount('zombie-pod-with-sexton-app')).toBe(0);

  // Without sexton the app is PID 1 with no SIGTERM handler: the kernel drops the signal, and
  // the pod dies only at podman's SIGKILL, terminationGracePeriodSeconds (5) later.
  const without = manifest.grace['zombie-pod-without-sexton'];
  expect(without).toBe(5);
  const bare = await stopPod('zombie-pod-without-sexton', without);
  console.log(`zombie-pod-without-sexton: pod stop -t ${without} took ${Math.round(bare.durationMs)} ms`);
  expect(bare.durationMs).toBeGreaterThanOrEqual(5_000);
  expect(await exitCodeOf('zombie-pod-without-sexton-app')).toBe(137);

  // With sexton: SIGTERM is forwarded, the app dies of it, sexton exits 128+15 at once.
  const withSexton = manifest.grace['zombie-pod-with-sexton'];
  expect(withSexton).toBe(15);
  const fixed = await stopPod('zombie-pod-with-sexton', withSexton);
  console.log(`zombie-pod-with-sexton: pod stop -t ${withSexton} took ${Math.round(fixed.durationMs)} ms`);
  expect(fixed.durationMs).toBeLessThan(5_000);
  expect(await exitCodeOf('zombie-pod-with-sexton-app')).toBe(143);
  // 200 orphans in ~200 ms outrun naming's budget when the machine is busy: those not named
  // are a number of their own.
  const output = await logs('zombie-pod-with-sexton-app');
  const [, named, unnamed] = /sexton: exiting with 143: reaped 201 \(200 orphans: sh×(\d+)(?: (\d+) unnamed)?\)/.exec(output) ?? [];
  expect(Number(named) + Number(unnamed ?? 0), output).toBe(200);
  expect(Number(named)).toBeGreaterThanOrEqual(100);
});
