// `sexton scan` from the host against real podman containers and a podman pod, each holding a
// zombie: every group is attributed to the ids `podman inspect` reports, and the reason says
// whether the container lacks an init or its app never waits.
import { execa } from 'execa';
import * as path from 'node:path';
import { afterEach, expect, inject, test } from 'vitest';
import { checkMetrics, sample } from '../support/observability';
import { freePort } from '../support/http';
import { requireBuilt, SEXTON, until } from '../support/pid1';
import { images, removeAll, runToEnd, start } from './containers';
import { podman } from './podman';
import { track } from '../support/processes';
import { childrenOf } from '../../src/harness/namespace';

const engine = () => inject('engine');
const pods = new Set<string>();

afterEach(async () => {
  await removeAll();
  for (const pod of pods) await podman(engine(), ['pod', 'rm', '-f', '-t', '0', pod], { reject: false });
  pods.clear();
});

async function inspect(name: string, format: string, kind: 'container' | 'pod' = 'container'): Promise<string> {
  return (await podman(engine(), [kind, 'inspect', '--format', format, name])).stdout.trim();
}

async function scanJson(): Promise<any[]> {
  requireBuilt();
  const r = await execa(process.execPath, [SEXTON, 'scan', '--json'], { reject: false, timeout: 30_000 });
  if (r.exitCode !== 0 && r.exitCode !== 1) throw new Error(`sexton scan exited ${r.exitCode}: ${r.stderr}`);
  return JSON.parse(String(r.stdout)).groups;
}

/** The scan's group for the process holding the zombie, once that zombie exists. */
async function groupHeldBy(hostPid: number): Promise<any> {
  let found: any;
  const deadline = Date.now() + 15_000;
  while (!(found = (await scanJson()).find((g) => g.parent.pid === hostPid))) {
    if (Date.now() > deadline) throw new Error(`no zombie group held by pid ${hostPid} in 15 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return found;
}

/** An app that forks and never waits, whatever PID it has. */
const LEAK = ['sh', '-c', 'sleep 0 & exec sleep 120'];

test('a container with no init: its PID 1 holds the zombie; attributed to the container id', async () => {
  const name = await start(images().glibcBase, LEAK);
  const id = await inspect(name, '{{.Id}}');
  const pid1 = Number(await inspect(name, '{{.State.Pid}}'));
  expect(id).toMatch(/^[0-9a-f]{64}$/);
  expect(await groupHeldBy(pid1)).toMatchObject({
    parent: { pid: pid1, command: 'sleep 120' }, zombies: 1, containerId: id, runtime: 'podman', podUid: null,
    namespace: null, pod: null, container: null, reason: 'pid1-does-not-reap',
  });
});

test('a container with sexton as init: the app holds the zombie, not PID 1', async () => {
  const name = await start(images().node, LEAK);
  const id = await inspect(name, '{{.Id}}');
  const pid1 = Number(await inspect(name, '{{.State.Pid}}'));
  const app = await until(() => childrenOf(pid1)[0], 10_000, "sexton's child");
  expect(await groupHeldBy(app)).toMatchObject({ zombies: 1, containerId: id, runtime: 'podman', reason: 'parent-does-not-wait' });
  expect((await scanJson()).find((g) => g.parent.pid === pid1)).toBeUndefined();
});

test('a podman pod: the container and the pod ids, in JSON and in the metrics', async () => {
  const podName = `sexton-test-scan-pod-${process.pid}`;
  pods.add(podName);
  await podman(engine(), ['pod', 'create', '--network=none', '--name', podName], { timeoutMs: 120_000 });
  const podId = await inspect(podName, '{{.Id}}', 'pod');
  const name = await startInPod(podName);
  const id = await inspect(name, '{{.Id}}');
  const pid1 = Number(await inspect(name, '{{.State.Pid}}'));
  expect(await groupHeldBy(pid1)).toMatchObject({ zombies: 1, containerId: id, runtime: 'podman', podUid: podId, reason: 'pid1-does-not-reap' });

  const port = await freePort();
  const server = execa(process.execPath, [SEXTON, 'scan', '--serve', `127.0.0.1:${port}`], { reject: false, timeout: 60_000, killSignal: 'SIGKILL' });
  track(server.pid);
  let stderr = '';
  server.stderr?.on('data', (d) => (stderr += d));
  await until(() => stderr.includes('metrics on'), 10_000, 'the scan server');
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const labels = `namespace="",pod="",container="",pod_uid="${podId}",container_id="${id}",runtime="podman",reason="pid1-does-not-reap"`;
  expect(sample(text, `sexton_scan_zombies{${labels}}`), text).toBe(1);
  expect(text).not.toContain('sleep 120');
  const check = await checkMetrics(text);
  expect(check.exitCode, check.output).toBe(0);
  server.kill('SIGTERM');
  expect((await server).exitCode).toBe(0);
});

test('the installed package scans too: inside a container, its own PID namespace, no zombie', async () => {
  const { exitCode, stdout, stderr } = await runToEnd(images().node, ['sexton', 'scan', '--json']);
  expect(exitCode, stderr).toBe(0);
  const json = JSON.parse(stdout);
  // sexton as PID 1 and the scanner it runs: nothing else, nothing held.
  expect(json).toMatchObject({ groups: [], scannedProcesses: 2, unreadableProcesses: 0 });
});

/** `podman run -d --pod POD` of the leaking app; `pod rm -f` removes it with its pod. */
async function startInPod(pod: string): Promise<string> {
  const name = `sexton-test-${path.basename(pod)}-app`;
  await podman(engine(), ['run', '-d', '--pod', pod, '--name', name, images().glibcBase, ...LEAK]);
  return name;
}
