// A pod with a shared PID namespace (shareProcessNamespace: true; in CRI, pid: POD): the pause
// process is the pod's PID 1 and sexton is not, so it makes itself a subreaper: the app's
// orphans come to sexton, which reaps them and reports them, instead of escaping to pause.
import { afterEach, expect, test } from 'vitest';
import { CRI_IMAGES } from './images';
import { cri, exited, Pod, podName } from './pods';
import { sleep } from '../support/pid1';

const pods: Pod[] = [];
afterEach(async () => {
  for (const pod of pods.splice(0)) await pod.remove();
});

test('pause is PID 1, sexton a subreaper that reaps the 50 orphans of its app; StopContainer ends it with 143', async () => {
  const pod = await new Pod(podName('shared-pid')).run();
  pods.push(pod);
  const workload = ['node', '/usr/local/lib/node_modules/sexton/dist/workload.js', 'orphans', '50'];
  const app = await pod.start({ name: 'app', image: CRI_IMAGES.node, args: workload, pid: 'POD' });
  const deadline = Date.now() + 20_000;
  while (!pod.log('app').includes('{"event":"orphans-created","count":50}')) {
    if (Date.now() > deadline) throw new Error(`no orphans-created line:\n${pod.log('app')}`);
    await sleep(100);
  }
  const pid1 = await cri().execSync(app, ['cat', '/proc/1/cmdline'], 10);
  expect(pid1.stdout.split('\0')[0]).toBe('/pause');
  // Every process of the pod's namespace: pid, state, command line.
  const listing = await cri().execSync(app, ['sh', '-c', 'for p in /proc/[0-9]*; do echo "${p#/proc/} $(sed -n "s/^State:\\s*\\(.\\).*/\\1/p" $p/status) $(tr "\\0" " " < $p/cmdline)"; done'], 10);
  const procs = listing.stdout.split('\n').filter(Boolean).map((l) => l.split(' '));
  expect(procs.filter(([, state]) => state === 'Z'), listing.stdout).toEqual([]);
  const sexton = procs.find(([, , ...argv]) => argv.slice(0, 3).join(' ') === 'node /usr/local/bin/sexton --');
  expect(sexton, listing.stdout).toBeDefined();
  expect(sexton![0]).not.toBe('1');
  const status = await cri().execSync(app, ['cat', `/proc/${sexton![0]}/status`], 10);
  expect(status.stdout).toMatch(/^PPid:\s+0$/m);  // started by runc from outside the namespace
  await cri().stopContainer(app, 10);
  expect((await exited(app)).exit_code).toBe(143);
  expect(pod.log('app')).toMatch(/sexton: exiting with 143: reaped \d+ \(50 orphans/);
});
