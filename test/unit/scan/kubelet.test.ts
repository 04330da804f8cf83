// Pod and container names from the kubelet's log directories, laid out in a temp dir as the
// kubelet writes them: /var/log/pods/<ns>_<pod>_<uid>/<container>/N.log and
// /var/log/containers/<pod>_<ns>_<container>-<id>.log → ../pods/….
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { namesFor, parseContainerLog, parsePodDir, readKubeletNames } from '../../../src/scan/kubelet';

const UID = '2f3a4b5c-6d7e-4f80-9a1b-2c3d4e5f6a7b';
const UID2 = '0a1b2c3d-4e5f-4061-8293-a4b5c6d7e8f9';
const APP = 'a'.repeat(64);
const SIDECAR = 'b'.repeat(64);
const PAUSE = 'c'.repeat(64);

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A node's /var/log with the given pods: {uid: [namespace, pod, {container: id}]}. */
function varLog(pods: Record<string, [string, string, Record<string, string>]>, withContainersDir = true): string {
  const root = mkdtempSync(path.join(tmpdir(), 'sexton-scan-kubelet-'));
  dirs.push(root);
  mkdirSync(path.join(root, 'pods'));
  if (withContainersDir) mkdirSync(path.join(root, 'containers'));
  for (const [uid, [namespace, pod, containers]] of Object.entries(pods)) {
    for (const [container, id] of Object.entries(containers)) {
      const dir = path.join(root, 'pods', `${namespace}_${pod}_${uid}`, container);
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, '0.log'), '');
      if (withContainersDir) symlinkSync(path.join(dir, '0.log'), path.join(root, 'containers', `${pod}_${namespace}_${container}-${id}.log`));
    }
  }
  return path.join(root, 'pods');
}

test('namespace, pod and container of a multi-container pod', () => {
  const podsDir = varLog({
    [UID]: ['shop', 'checkout-7d9f8b6c5-x2x9k', { app: APP, 'log-shipper': SIDECAR }],
    [UID2]: ['kube-system', 'coredns-5d78c9869d-abcde', { coredns: 'd'.repeat(64) }],
  });
  const names = readKubeletNames(podsDir);
  expect(names.found).toBe(true);
  expect(namesFor(names, UID, APP)).toEqual({ namespace: 'shop', pod: 'checkout-7d9f8b6c5-x2x9k', container: 'app' });
  expect(namesFor(names, UID, SIDECAR)).toEqual({ namespace: 'shop', pod: 'checkout-7d9f8b6c5-x2x9k', container: 'log-shipper' });
  // The sandbox (pause) container writes no log: the pod is named, the container is not.
  expect(namesFor(names, UID, PAUSE)).toEqual({ namespace: 'shop', pod: 'checkout-7d9f8b6c5-x2x9k', container: null });
  expect(namesFor(names, UID2, null)).toEqual({ namespace: 'kube-system', pod: 'coredns-5d78c9869d-abcde', container: null });
  expect(namesFor(names, '11111111-2222-3333-4444-555555555555', APP)).toEqual({ namespace: null, pod: null, container: 'app' });
});

test('without /var/log/containers, a pod with one container directory names it', () => {
  const podsDir = varLog({ [UID]: ['default', 'web', { nginx: APP }], [UID2]: ['default', 'two', { a: SIDECAR, b: PAUSE }] }, false);
  const names = readKubeletNames(podsDir);
  expect(namesFor(names, UID, APP)).toEqual({ namespace: 'default', pod: 'web', container: 'nginx' });
  expect(namesFor(names, UID2, SIDECAR)).toEqual({ namespace: 'default', pod: 'two', container: null });
});

test('a missing pods directory: not found, nothing named', () => {
  const names = readKubeletNames(path.join(tmpdir(), 'sexton-scan-no-such-dir', 'pods'));
  expect(names.found).toBe(false);
  expect(namesFor(names, UID, APP)).toEqual({ namespace: null, pod: null, container: null });
});

test('entries that are not the kubelet layout are ignored', () => {
  expect(parsePodDir(`default_web_${UID}`)).toEqual({ namespace: 'default', pod: 'web', uid: UID });
  expect(parsePodDir('lost+found')).toBeUndefined();
  expect(parsePodDir(`Default_web_${UID}`)).toBeUndefined();
  expect(parsePodDir(`default_web_extra_${UID}`)).toBeUndefined();
  expect(parseContainerLog(`web_default_nginx-${APP}.log`)).toEqual({ container: 'nginx', id: APP });
  expect(parseContainerLog(`web_default_nginx-${APP}.log.1`)).toBeUndefined();
  expect(parseContainerLog('kube-proxy.log')).toBeUndefined();
});
