// Pods as the kubelet makes them through CRI: the pod's UID, namespace and name in the sandbox's
// metadata and labels, a cgroup parent shaped like the kubelet's cgroupfs one
// (<run>/kubepods/besteffort/pod<uid>), logs under <pods dir>/<namespace>_<name>_<uid>/<container>/,
// host networking (no CNI), and each container in a PID namespace of its own unless asked.
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync, symlinkSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, inject } from 'vitest';
import { connect, ContainerConfig, ContainerStatus, CriClient, NamespaceMode, PodConfig, Restrictions } from './client';
import { sleep, until } from '../support/pid1';
import type { SextonStatus } from '../containers/containers';

export const NAMESPACE = 'sexton-cri';

/**
 * Pod Security's restricted level (runAsNonRoot as uid 1000, allowPrivilegeEscalation false,
 * every capability dropped, seccomp RuntimeDefault) and a read-only root filesystem, as the
 * kubelet hands that securityContext to CRI.
 */
export const RESTRICTED: Restrictions = {
  run_as_user: { value: 1000 },
  run_as_group: { value: 1000 },
  no_new_privs: true,
  capabilities: { drop_capabilities: ['ALL'] },
  seccomp: { profile_type: 'RuntimeDefault' },
  readonly_rootfs: true,
};

let shared: CriClient | undefined;

export function cri(): CriClient {
  shared ??= connect(inject('containerd').socket);
  return shared;
}

/** An open channel keeps the test worker alive: closed after each file. */
afterAll(() => {
  shared?.close();
  shared = undefined;
});

export interface ContainerSpec {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: Record<string, string>;
  mounts?: { container_path: string; source: string; readonly?: boolean }[];
  /** CONTAINER (the kubelet's default) or POD (shareProcessNamespace: true). */
  pid?: NamespaceMode;
  /** The restart count: a name may be used again in a pod with a higher attempt. */
  attempt?: number;
  /** The container's securityContext, as the kubelet hands it to CRI. */
  restrictions?: Restrictions;
}

export class Pod {
  readonly uid = randomUUID();
  readonly config: PodConfig;
  id = '';

  constructor(readonly name: string) {
    const { name: run, podsDir } = inject('containerd');
    this.config = {
      metadata: { name, uid: this.uid, namespace: NAMESPACE },
      log_directory: path.join(podsDir, `${NAMESPACE}_${name}_${this.uid}`),
      labels: { 'io.kubernetes.pod.name': name, 'io.kubernetes.pod.namespace': NAMESPACE, 'io.kubernetes.pod.uid': this.uid },
      linux: {
        cgroup_parent: `/${run}/kubepods/besteffort/pod${this.uid}`,
        security_context: { namespace_options: { network: 'NODE', pid: 'POD', ipc: 'POD' } },
      },
    };
  }

  /** The pod's cgroup directory in a v1 hierarchy. */
  cgroup(controller = 'pids'): string {
    return path.join('/sys/fs/cgroup', controller, this.config.linux!.cgroup_parent!);
  }

  async run(): Promise<this> {
    this.id = await cri().runPod(this.config);
    return this;
  }

  /** CreateContainer and StartContainer; returns the container's id. */
  async start(spec: ContainerSpec): Promise<string> {
    const config: ContainerConfig = {
      metadata: { name: spec.name, attempt: spec.attempt ?? 0 },
      image: { image: spec.image },
      command: spec.command,
      args: spec.args,
      envs: Object.entries(spec.env ?? {}).map(([key, value]) => ({ key, value })),
      mounts: spec.mounts,
      labels: { ...this.config.labels, 'io.kubernetes.container.name': spec.name },
      log_path: `${spec.name}/${spec.attempt ?? 0}.log`,
      linux: { security_context: { namespace_options: { network: 'NODE', pid: spec.pid ?? 'CONTAINER', ipc: 'POD' }, ...spec.restrictions } },
    };
    const id = await cri().createContainer(this.id, config, this.config);
    await cri().startContainer(id);
    // As the kubelet does once the container started: /var/log/containers/<pod>_<ns>_<name>-<id>.log.
    const link = path.join(path.dirname(inject('containerd').podsDir), 'containers', `${this.name}_${NAMESPACE}_${spec.name}-${id}.log`);
    symlinkSync(path.join(this.config.log_directory!, config.log_path!), link);
    return id;
  }

  /** The container's log as containerd wrote it (CRI format: time stream tag text), text only. */
  log(container: string, attempt = 0): string {
    const file = path.join(this.config.log_directory!, container, `${attempt}.log`);
    return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => l.split(' ').slice(3).join(' ')).join('\n');
  }

  /** Waits until the container's log holds text. */
  async untilLogged(container: string, text: string, timeoutMs = 20_000): Promise<void> {
    await until(() => this.log(container).includes(text), timeoutMs, `'${text}' in the log of ${container}`)
      .catch((error: Error) => {
        throw new Error(`${error.message}:\n${this.log(container)}`);
      });
  }

  /** StopPodSandbox and RemovePodSandbox, as the kubelet ends a pod. */
  async remove(): Promise<void> {
    if (!this.id) return;
    await cri().stopPod(this.id);
    await cri().removePod(this.id);
    this.id = '';
  }
}

export function podName(story: string): string {
  return `${story}-${randomBytes(3).toString('hex')}`;
}

/** Waits for a container to reach EXITED; returns its status. */
export async function exited(id: string, timeoutMs = 30_000): Promise<ContainerStatus> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await cri().containerStatus(id);
    if (status.state === 'CONTAINER_EXITED') return status;
    if (Date.now() > deadline) throw new Error(`container ${id} still ${status.state} after ${timeoutMs} ms`);
    await sleep(50);
  }
}

/** sexton status --json in the container (`sexton`: its path there), once sexton has reaped `count` orphans. */
export async function untilReaped(id: string, count: number, sexton = 'sexton'): Promise<SextonStatus> {
  return until(async () => {
    const answer = await cri().execSync(id, [sexton, 'status', '--json'], 10);
    if (answer.exit_code !== 0) throw new Error(`sexton status exited ${answer.exit_code}: ${answer.stderr}`);
    const status = JSON.parse(answer.stdout) as SextonStatus;
    return status.orphansReaped >= count && status;
  }, 15_000, `${count} orphans reaped in container ${id}`);
}

/** Host pid of a running container's PID 1 (ContainerStatus's verbose info, as crictl shows it). */
export async function hostPid(id: string): Promise<number> {
  const { pid } = await cri().containerStatus(id);
  if (!pid) throw new Error(`container ${id} has no pid in its status`);
  return pid;
}
