// Pod and container names without an API server, from the directories the kubelet writes on
// every node: /var/log/pods/<namespace>_<pod>_<uid>/<container>/ and, beside it,
// /var/log/containers/<pod>_<namespace>_<container>-<container id>.log (symlinks).
import { readdirSync } from 'node:fs';
import * as path from 'node:path';

export interface PodNames {
  namespace: string;
  pod: string;
  /** The container directories of the pod. */
  containers: string[];
}

export interface KubeletNames {
  /** False when the pods directory cannot be read: ids only. */
  found: boolean;
  podsByUid: Map<string, PodNames>;
  containerById: Map<string, string>;
}

function list(dir: string): string[] | undefined {
  try {
    return readdirSync(dir);
  } catch {
    return undefined;
  }
}

/** `<namespace>_<pod>_<uid>`: neither a namespace nor a pod name may hold `_`. */
export function parsePodDir(name: string): { namespace: string; pod: string; uid: string } | undefined {
  const m = /^([a-z0-9-]+)_([a-z0-9.-]+)_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/.exec(name);
  return m ? { namespace: m[1], pod: m[2], uid: m[3] } : undefined;
}

/** `<pod>_<namespace>_<container>-<64 hex>.log` → container id and name. */
export function parseContainerLog(name: string): { id: string; container: string } | undefined {
  const m = /^[a-z0-9.-]+_[a-z0-9-]+_([a-z0-9-]+)-([0-9a-f]{64})\.log$/.exec(name);
  return m ? { container: m[1], id: m[2] } : undefined;
}

export function readKubeletNames(podsDir: string): KubeletNames {
  const podsByUid = new Map<string, PodNames>();
  const containerById = new Map<string, string>();
  const entries = list(podsDir);
  if (!entries) return { found: false, podsByUid, containerById };
  for (const entry of entries) {
    const pod = parsePodDir(entry);
    if (pod) podsByUid.set(pod.uid, { namespace: pod.namespace, pod: pod.pod,
      containers: list(path.join(podsDir, entry)) ?? [] });
  }
  for (const entry of list(path.join(podsDir, '..', 'containers')) ?? []) {
    const log = parseContainerLog(entry);
    if (log) containerById.set(log.id, log.container);
  }
  return { found: true, podsByUid, containerById };
}

/**
 * Names for a pod UID and container id. The container's name comes from its log symlink; when
 * symlinks are missing altogether, a pod with a single container directory names it.
 */
export function namesFor(names: KubeletNames, podUid: string | null, containerId: string | null) {
  const pod = podUid ? names.podsByUid.get(podUid) : undefined;
  const byLog = containerId ? names.containerById.get(containerId) : undefined;
  // With log symlinks present, an id they do not name is no app container (the pod's sandbox).
  const single = pod && pod.containers.length === 1 && names.containerById.size === 0 ? pod.containers[0] : null;
  return { namespace: pod?.namespace ?? null, pod: pod?.pod ?? null, container: byLog ?? single };
}
