// sexton from the sexton-volume image as PID 1 of pods on the base images users run (scratch,
// distroless static, distroless Node, Alpine-like musl, Debian), through containerd's CRI as the
// kubelet drives it. An emulation of the image volume: containerd 1.6 has none, so each app
// container mounts the unpacked sexton-volume image read-only at /sexton, which is what the
// kubelet of Kubernetes 1.36 asks containerd 2.1 for (examples/kubernetes/image-volume.yaml).
import { afterEach, describe, expect, inject, test } from 'vitest';
import { Base, BASES } from '../containers/base-images';
import { volumeMount } from './images';
import { cri, exited, Pod, podName, untilReaped } from './pods';

const pods: Pod[] = [];
afterEach(async () => {
  for (const pod of pods.splice(0)) await pod.remove();
});

/** The image-volume manifest's command, and the mount it stands for. */
const COMMAND = ['/sexton/bin/sexton', '--'];
const volume = () => volumeMount(inject('containerd').dir);

describe.each(Object.keys(BASES) as Base[])('on %s', (base) => {
  test('sexton from the mounted volume is PID 1, reaps the orphan, forwards the kubelet\'s TERM', async () => {
    const pod = await new Pod(podName(`volume-${base}`)).run();
    pods.push(pod);
    const id = await pod.start({ name: 'app', image: `${BASES[base]}:latest`, command: COMMAND, args: ['/app/volume-app'], mounts: volume() });
    await pod.untilLogged('app', 'ready');
    const status = await untilReaped(id, 1, '/sexton/bin/sexton');
    expect(status).toMatchObject({ pid: 1, orphansReaped: 1, zombieCount: 0 });
    await cri().stopContainer(id, 30);
    expect((await exited(id)).exit_code).toBe(0);
    expect(pod.log('app')).toContain('got TERM');
  });
});

test('an app that ignores TERM is SIGKILLed at sexton\'s grace period, well before the pod\'s', async () => {
  const pod = await new Pod(podName('volume-grace')).run();
  pods.push(pod);
  const id = await pod.start({ name: 'app', image: `${BASES['distroless-static']}:latest`, command: ['/sexton/bin/sexton', '--grace', '1', '--'], args: ['/app/volume-app', 'ignore'], mounts: volume() });
  await pod.untilLogged('app', 'ready');
  const started = Date.now();
  await cri().stopContainer(id, 30);
  expect(Date.now() - started).toBeLessThan(10_000);
  expect((await exited(id)).exit_code).toBe(137);
});
