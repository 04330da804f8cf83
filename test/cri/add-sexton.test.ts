// examples/kubernetes/add-sexton.yaml through CRI, as the kubelet runs it: the emptyDir is a
// directory of the pod's on the node (0777, as the kubelet makes it) bind-mounted into both
// containers; the init container (the sexton-volume image, FROM scratch: no shell, no cp) runs to
// completion first, then the app container starts with the manifest's command in front of an app
// on the distroless-static-like base (no shell, no C library, no Node). Both under the manifest's
// restricted securityContext.
import { chmodSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, expect, inject, test } from 'vitest';
import { ROOT } from '../support/pid1';
import { BASES } from '../containers/base-images';
import { CRI_IMAGES } from './images';
import { cri, exited, Pod, podName, RESTRICTED, untilReaped } from './pods';

const MANIFEST = readFileSync(path.join(ROOT, 'examples', 'kubernetes', 'add-sexton.yaml'), 'utf8');

/** The securityContext lines that make RESTRICTED, as the manifest spells them. */
const RESTRICTED_LINES = ['runAsNonRoot: true', 'runAsUser: 1000', 'allowPrivilegeEscalation: false',
  'readOnlyRootFilesystem: true', 'drop: ["ALL"]', 'type: RuntimeDefault'];

/** A container of the manifest: its `command` (a JSON flow sequence), its volume's mountPath, its securityContext. */
function fromManifest(container: string): { command: string[]; mountPath: string; restricted: boolean } {
  const block = new RegExp(`\\n    - name: ${container}\\n([\\s\\S]*?)(?=\\n    - name: |\\n  \\w)`).exec(MANIFEST)?.[1];
  const command = block && /command: (\[.*\])/.exec(block);
  const mountPath = block && /mountPath: (\S+)/.exec(block);
  if (!command || !mountPath) throw new Error(`no container ${container} with a command and a volume mount in add-sexton.yaml`);
  return { command: JSON.parse(command[1]) as string[], mountPath: mountPath[1], restricted: RESTRICTED_LINES.every((l) => block.includes(l)) };
}

const pods: Pod[] = [];
afterEach(async () => {
  for (const pod of pods.splice(0)) await pod.remove();
});

test('add-sexton.yaml: the init container copies the tree with no shell; sexton from it is PID 1 of a distroless-static app, reaps, forwards TERM', async () => {
  const init = fromManifest('add-sexton');
  const app = fromManifest('app');
  expect([init.restricted, app.restricted]).toEqual([true, true]);
  const pod = await new Pod(podName('add-sexton')).run();
  pods.push(pod);
  // The kubelet's emptyDir: a directory of the pod's on the node, writable by any uid.
  const emptyDir = path.join(inject('containerd').dir, 'volumes', pod.uid, 'sexton');
  mkdirSync(emptyDir, { recursive: true });
  chmodSync(emptyDir, 0o777);

  const copier = await pod.start({ name: 'add-sexton', image: CRI_IMAGES.volume, command: init.command, mounts: [{ container_path: init.mountPath, source: emptyDir }], restrictions: RESTRICTED });
  const copied = await exited(copier, 30_000);
  expect(copied.exit_code, pod.log('add-sexton')).toBe(0);
  expect(pod.log('add-sexton')).toBe('');
  // Written by the init container's uid, with the tree's modes.
  const node = statSync(path.join(emptyDir, 'bin', 'node'));
  expect([node.uid, node.mode & 0o777]).toEqual([1000, 0o755]);

  const id = await pod.start({ name: 'app', image: `${BASES['distroless-static']}:latest`, command: app.command, args: ['/app/volume-app'], mounts: [{ container_path: app.mountPath, source: emptyDir, readonly: true }], restrictions: RESTRICTED });
  await pod.untilLogged('app', 'ready');
  const status = await untilReaped(id, 1, `${app.mountPath}/bin/sexton`);
  expect(status).toMatchObject({ pid: 1, orphansReaped: 1, zombieCount: 0 });

  const started = Date.now();
  await cri().stopContainer(id, 30);
  expect(Date.now() - started).toBeLessThan(5000);
  expect((await exited(id)).exit_code).toBe(0);
  expect(pod.log('app')).toContain('got TERM');
  expect(pod.log('app')).not.toMatch(/internal error/);
});
