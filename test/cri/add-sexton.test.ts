// examples/kubernetes/add-sexton.yaml through CRI, as the kubelet runs it: the emptyDir is a
// directory of the pod's on the node bind-mounted into both containers, the init container runs
// to completion first, then the app container starts with the manifest's command in front of an
// app on an image with no Node (the glibc base: glibc, libstdc++, busybox).
import { mkdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, expect, inject, test } from 'vitest';
import { ROOT, sleep } from '../support/pid1';
import { CRI_IMAGES } from './images';
import { cri, exited, Pod, podName } from './pods';

const MANIFEST = readFileSync(path.join(ROOT, 'examples', 'kubernetes', 'add-sexton.yaml'), 'utf8');

/** A container's `command` (a JSON flow sequence in the manifest) and its volume's mountPath. */
function fromManifest(container: string): { command: string[]; mountPath: string } {
  const block = new RegExp(`- name: ${container}\\n[\\s\\S]*?command: (\\[.*\\])[\\s\\S]*?mountPath: (\\S+)`).exec(MANIFEST);
  if (!block) throw new Error(`no container ${container} with a command and a volume mount in add-sexton.yaml`);
  return { command: JSON.parse(block[1]) as string[], mountPath: block[2] };
}

/** The app: a shell that leaves 10 orphans, then becomes a sleep. Stands for the image's own entrypoint. */
const APP = ['sh', '-c', 'for i in 1 2 3 4 5 6 7 8 9 10; do (sleep 0.1 &); done; echo started; exec sleep 1000'];

const pods: Pod[] = [];
afterEach(async () => {
  for (const pod of pods.splice(0)) await pod.remove();
});

test('add-sexton.yaml: the init container copies sexton and node into the emptyDir; sexton runs as PID 1 of an image without Node, reaps, stops with 143', async () => {
  const init = fromManifest('add-sexton');
  const app = fromManifest('app');
  const pod = await new Pod(podName('add-sexton')).run();
  pods.push(pod);
  // The kubelet's emptyDir: a directory of the pod's on the node.
  const emptyDir = path.join(inject('containerd').dir, 'volumes', pod.uid, 'sexton');
  mkdirSync(emptyDir, { recursive: true });

  const copier = await pod.start({ name: 'add-sexton', image: CRI_IMAGES.node, command: init.command, mounts: [{ container_path: init.mountPath, source: emptyDir }] });
  const copied = await exited(copier, 30_000);
  expect(copied.exit_code, pod.log('add-sexton')).toBe(0);

  const id = await pod.start({ name: 'app', image: CRI_IMAGES.glibcBase, command: app.command, args: APP, mounts: [{ container_path: app.mountPath, source: emptyDir, readonly: true }] });
  const deadline = Date.now() + 20_000;
  while (!pod.log('app').includes('started')) {
    if (Date.now() > deadline) throw new Error(`the app did not start:\n${pod.log('app')}`);
    await sleep(100);
  }
  expect((await cri().execSync(id, ['sh', '-c', 'command -v node || ls /usr/local/bin /usr/bin | grep -c "^node$"'], 10)).stdout.trim()).toBe('0');
  const pid1 = (await cri().execSync(id, ['cat', '/proc/1/cmdline'], 10)).stdout.split('\0');
  expect(pid1.slice(0, app.command.length)).toEqual(app.command);
  await sleep(500);  // the orphans' sleep 0.1 has ended
  const zombies = await cri().execSync(id, ['sh', '-c', 'grep -l "^State:.*Z" /proc/[0-9]*/status | wc -l'], 10);
  expect(Number(zombies.stdout.trim())).toBe(0);

  const started = Date.now();
  await cri().stopContainer(id, 30);
  expect(Date.now() - started).toBeLessThan(5000);
  expect((await exited(id)).exit_code).toBe(143);
  // Orphans are named within a budget (native/reaper.cc): some may go unnamed, none misnamed.
  expect(pod.log('app')).toMatch(/sexton: exiting with 143: reaped 11 \(10 orphans: sleep×\d+( \d+ unnamed)?\)/);
});
