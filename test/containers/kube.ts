// The manifests of examples/kubernetes, run by `podman kube play` with the suite's locally
// built images, as close to the files as podman allows: only the image names change (no
// registry here), Deployments run one replica, and a published port goes to a free loopback
// port of the host. Pods are stopped with `podman pod stop -t <terminationGracePeriodSeconds>`:
// podman 4.3's `kube down` kills at once and ignores the manifest's grace.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { inject } from 'vitest';
import { ROOT } from '../support/pid1';
import { podman, PodmanResult } from './podman';

const engine = () => inject('engine');
const played = new Set<string>();

/** The manifest's image names and the suite's images that stand for them. */
export function localImages(): Record<string, string> {
  const images = inject('images');
  return { 'my-org/example-node-app:latest': `${images.nodeApp}:latest`, 'my-org/node-sexton:26': `${images.node}:latest` };
}


export interface Manifest {
  text: string;
  /** terminationGracePeriodSeconds by pod (or Deployment) name, in file order. */
  grace: Record<string, number>;
}

/** examples/kubernetes/FILE with the changes podman here needs, each one visible in this function. */
export function localManifest(file: string, options: { hostPort?: number } = {}): Manifest {
  let text = readFileSync(path.join(ROOT, 'examples', 'kubernetes', file), 'utf8');
  for (const [from, to] of Object.entries(localImages())) text = text.split(`image: ${from}`).join(`image: ${to}`);
  text = text.replace(/replicas: \d+/g, 'replicas: 1');
  if (options.hostPort !== undefined) {
    text = text.replace(/^( *)- containerPort: (\d+)$/gm, `$&\n$1  hostPort: ${options.hostPort}\n$1  hostIP: 127.0.0.1`);
  }
  const grace: Record<string, number> = {};
  for (const doc of text.split(/^---$/m)) {
    const name = /^metadata:\n\s+name: (\S+)/m.exec(doc)?.[1];
    const seconds = /terminationGracePeriodSeconds: (\d+)/.exec(doc)?.[1];
    if (name && seconds) grace[name] = Number(seconds);
  }
  return { text, grace };
}

/** `podman kube play`; returns the names of the pods it started. */
export async function play(manifest: Manifest): Promise<string[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sexton-kube-'));
  try {
    const file = path.join(dir, 'manifest.yaml');
    writeFileSync(file, manifest.text);
    const { stdout } = await podman(engine(), ['kube', 'play', file], { timeoutMs: 120_000 });
    const pods = await podNames(stdout);
    for (const pod of pods) played.add(pod);
    return pods;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function podNames(playOutput: string): Promise<string[]> {
  // `kube play` prints "Pod:\n<id>" for each pod; ask podman for their names.
  const ids = [...playOutput.matchAll(/^Pod:\n([0-9a-f]{64})$/gm)].map((m) => m[1]);
  const names: string[] = [];
  for (const id of ids) names.push((await podman(engine(), ['pod', 'inspect', id, '--format', '{{.Name}}'])).stdout.trim());
  return names;
}

/** `podman pod stop -t seconds`: the result, with how long it took. */
export function stopPod(pod: string, seconds: number): Promise<PodmanResult> {
  return podman(engine(), ['pod', 'stop', '-t', String(seconds), pod], { timeoutMs: (seconds + 30) * 1000 });
}

/** The exit code podman recorded for a stopped container. */
export async function exitCodeOf(container: string): Promise<number> {
  return Number((await podman(engine(), ['inspect', container, '--format', '{{.State.ExitCode}}'])).stdout.trim());
}

/** Zombies in a running container, counted as the manifest's comment counts them (no ps needed). */
export async function zombieCount(container: string): Promise<number> {
  const { stdout } = await podman(engine(), ['exec', container, 'sh', '-c', 'grep -l "^State:.*Z" /proc/[0-9]*/status | wc -l']);
  return Number(stdout.trim());
}

/** For afterEach: removes every pod this file played, with its containers. */
export async function removePods(): Promise<void> {
  for (const pod of played) {
    await podman(engine(), ['pod', 'rm', '-f', '-t', '0', pod], { reject: false });
    played.delete(pod);
  }
}
