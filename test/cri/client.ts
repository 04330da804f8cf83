// The kubelet's side of CRI, as much as the tier needs: calls over containerd's unix socket,
// built from cri.proto (runtime.v1). Field names stay as the proto spells them.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import * as path from 'node:path';

export type NamespaceMode = 'POD' | 'CONTAINER' | 'NODE' | 'TARGET';

export interface PodConfig {
  metadata: { name: string; uid: string; namespace: string; attempt?: number };
  hostname?: string;
  log_directory?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  linux?: { cgroup_parent?: string; security_context?: { namespace_options?: { network?: NamespaceMode; pid?: NamespaceMode; ipc?: NamespaceMode } } };
}

export interface ContainerConfig {
  metadata: { name: string; attempt?: number };
  image: { image: string };
  command?: string[];
  args?: string[];
  working_dir?: string;
  envs?: { key: string; value: string }[];
  mounts?: { container_path: string; source: string; readonly?: boolean }[];
  labels?: Record<string, string>;
  log_path?: string;
  linux?: { security_context?: { namespace_options?: { network?: NamespaceMode; pid?: NamespaceMode; ipc?: NamespaceMode } } & Restrictions };
}

/** What a pod spec's securityContext becomes in CRI (the restricted profile's fields). */
export interface Restrictions {
  capabilities?: { drop_capabilities?: string[]; add_capabilities?: string[] };
  run_as_user?: { value: number };
  run_as_group?: { value: number };
  readonly_rootfs?: boolean;
  no_new_privs?: boolean;
  seccomp?: { profile_type: 'RuntimeDefault' | 'Unconfined' | 'Localhost'; localhost_ref?: string };
}

export interface ContainerStatus {
  id: string;
  state: 'CONTAINER_CREATED' | 'CONTAINER_RUNNING' | 'CONTAINER_EXITED' | 'CONTAINER_UNKNOWN';
  started_at: number;
  finished_at: number;
  exit_code: number;
  reason: string;
  message: string;
  log_path: string;
}

export interface ExecResult {
  stdout: string;
  stderr: string;
  exit_code: number;
}

const PROTO = path.join(__dirname, 'cri.proto');

type Call = (request: object, options: { deadline: Date }, done: (error: grpc.ServiceError | null, response: any) => void) => void;

export class CriClient {
  constructor(private readonly runtime: grpc.Client, private readonly images: grpc.Client) {}

  private call<T>(client: grpc.Client, method: string, request: object, timeoutMs = 60_000): Promise<T> {
    const fn = (client as unknown as Record<string, Call>)[method].bind(client);
    return new Promise((resolve, reject) =>
      fn(request, { deadline: new Date(Date.now() + timeoutMs) }, (error, response) => (error ? reject(new Error(`${method}: ${error.details || error.message}`)) : resolve(response as T))),
    );
  }

  version() {
    return this.call<{ runtime_name: string; runtime_version: string; runtime_api_version: string }>(this.runtime, 'Version', { version: 'v1' }, 10_000);
  }

  async runPod(config: PodConfig): Promise<string> {
    return (await this.call<{ pod_sandbox_id: string }>(this.runtime, 'RunPodSandbox', { config })).pod_sandbox_id;
  }

  stopPod(id: string) {
    return this.call(this.runtime, 'StopPodSandbox', { pod_sandbox_id: id });
  }

  removePod(id: string) {
    return this.call(this.runtime, 'RemovePodSandbox', { pod_sandbox_id: id });
  }

  async listPods(): Promise<{ id: string; state: string; labels: Record<string, string> }[]> {
    return (await this.call<{ items: { id: string; state: string; labels: Record<string, string> }[] }>(this.runtime, 'ListPodSandbox', {})).items;
  }

  async createContainer(podId: string, config: ContainerConfig, sandboxConfig: PodConfig): Promise<string> {
    const request = { pod_sandbox_id: podId, config, sandbox_config: sandboxConfig };
    return (await this.call<{ container_id: string }>(this.runtime, 'CreateContainer', request)).container_id;
  }

  startContainer(id: string) {
    return this.call(this.runtime, 'StartContainer', { container_id: id });
  }

  /**
   * StopContainer with the grace period in seconds; the call returns once the container exited,
   * or fails at the call's deadline (the kubelet's "DeadlineExceeded" for a pod that will not end).
   */
  stopContainer(id: string, timeoutSeconds: number, deadlineMs = (timeoutSeconds + 60) * 1000) {
    return this.call(this.runtime, 'StopContainer', { container_id: id, timeout: timeoutSeconds }, deadlineMs);
  }

  removeContainer(id: string) {
    return this.call(this.runtime, 'RemoveContainer', { container_id: id });
  }

  async listContainers(podId?: string): Promise<{ id: string; pod_sandbox_id: string; state: string; metadata: { name: string } }[]> {
    const filter = podId ? { pod_sandbox_id: podId } : {};
    return (await this.call<{ containers: { id: string; pod_sandbox_id: string; state: string; metadata: { name: string } }[] }>(this.runtime, 'ListContainers', { filter })).containers;
  }

  async containerStatus(id: string): Promise<ContainerStatus & { pid: number | undefined }> {
    const response = await this.call<{ status: ContainerStatus; info: Record<string, string> }>(this.runtime, 'ContainerStatus', { container_id: id, verbose: true });
    const info = response.info?.info ? (JSON.parse(response.info.info) as { pid?: number }) : {};
    return { ...response.status, pid: info.pid || undefined };
  }

  /** ExecSync as a probe runs it: `timeoutSeconds` is the probe's timeoutSeconds. */
  async execSync(id: string, cmd: string[], timeoutSeconds: number): Promise<ExecResult> {
    const response = await this.call<{ stdout: Buffer; stderr: Buffer; exit_code: number }>(this.runtime, 'ExecSync', { container_id: id, cmd, timeout: timeoutSeconds }, (timeoutSeconds + 30) * 1000);
    return { stdout: response.stdout.toString(), stderr: response.stderr.toString(), exit_code: response.exit_code };
  }

  async listImages(): Promise<string[]> {
    return (await this.call<{ images: { repo_tags: string[] }[] }>(this.images, 'ListImages', {})).images.flatMap((i) => i.repo_tags);
  }

  close(): void {
    this.runtime.close();
    this.images.close();
  }
}

export function connect(socket: string): CriClient {
  const definition = protoLoader.loadSync(PROTO, { keepCase: true, longs: Number, enums: String, defaults: true });
  const api = (grpc.loadPackageDefinition(definition).runtime as grpc.GrpcObject).v1 as grpc.GrpcObject;
  const Runtime = api.RuntimeService as grpc.ServiceClientConstructor;
  const Images = api.ImageService as grpc.ServiceClientConstructor;
  const credentials = grpc.credentials.createInsecure();
  return new CriClient(new Runtime(`unix://${socket}`, credentials), new Images(`unix://${socket}`, credentials));
}
