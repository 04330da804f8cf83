// One scan of a node: every zombie in /proc, grouped by the live parent that holds it, and each
// group attributed to its container and pod.
import { listProcesses, ProcessInfo, zombiesByParent } from '../platform/procfs';
import { readText } from '../platform/read-text';
import { attributeCgroup, Runtime } from './cgroup';
import { KubeletNames, namesFor, readKubeletNames } from './kubelet';

/**
 * parent-does-not-wait: a live app process forks and never waits; the app's bug, no init helps.
 * pid1-does-not-reap: the zombie sits with the PID 1 of its PID namespace (orphans are
 * re-parented there), and that PID 1 does not reap: the container needs an init.
 */
export type Reason = 'parent-does-not-wait' | 'pid1-does-not-reap';

/** Where a process lives: its container and pod, by id and, from the kubelet, by name. */
export interface Placement {
  containerId: string | null;
  runtime: Runtime | null;
  podUid: string | null;
  namespace: string | null;
  pod: string | null;
  container: string | null;
  cgroup: string | null;
}

export interface ZombieGroupReport extends Placement {
  parent: { pid: number; command: string };
  zombies: number;
  oldestAgeSeconds: number;
  reason: Reason;
}

export interface ScanResult {
  groups: ZombieGroupReport[];
  scannedProcesses: number;
  /** /proc entries that could not be read (gone meanwhile, denied, garbled): skipped. */
  unreadableProcesses: number;
  /** Whether the kubelet's pods directory was readable; null when no group had a pod to name. */
  podsDirFound: boolean | null;
  durationMs: number;
}

export interface ScanOptions {
  procRoot: string;
  podsDir: string;
  minAgeSeconds: number;
}

/** PID 1 of its own PID namespace: the last NSpid of /proc/PID/status is 1. */
function isNamespaceInit(pid: number, procRoot: string): boolean {
  const line = readText(`${procRoot}/${pid}/status`)?.split('\n').find((l) => l.startsWith('NSpid:'));
  if (line) return line.trim().split(/\s+/).pop() === '1';
  return pid === 1;
}

/** Names the container and pod of a pid, reading the kubelet's directories once, when needed. */
export function attributor(options: ScanOptions) {
  let kubelet: KubeletNames | undefined;
  const attribute = (pid: number): Placement => {
    const where = attributeCgroup(readText(`${options.procRoot}/${pid}/cgroup`) ?? '');
    if (where.podUid && where.runtime !== 'podman') kubelet ??= readKubeletNames(options.podsDir);
    const names = kubelet && where.runtime !== 'podman' ? namesFor(kubelet, where.podUid, where.containerId) : {
      namespace: null, pod: null, container: null };
    return { containerId: where.containerId, runtime: where.runtime, podUid: where.podUid, ...names,
      cgroup: where.cgroup };
  };
  return { attribute, podsDirFound: () => (kubelet ? kubelet.found : null) };
}

/** One listing of /proc: what both scans start from. */
export interface Listing {
  processes: ProcessInfo[];
  /** Entries that could not be read (gone meanwhile, denied, garbled): skipped. */
  unreadable: number;
}

export function listAll(options: ScanOptions): Listing {
  const skipped = { count: 0 };
  const processes = listProcesses(options.procRoot, skipped);
  return { processes, unreadable: skipped.count };
}

export function scan(options: ScanOptions, listing?: Listing): ScanResult {
  const started = performance.now();
  const { processes, unreadable } = listing ?? listAll(options);
  // No reaper to leave out: -1 is no process.
  const found = zombiesByParent(processes, -1, options.procRoot).filter(
    (g) => g.oldestAgeSeconds >= options.minAgeSeconds);
  const { attribute, podsDirFound } = attributor(options);
  const groups = found.map((g): ZombieGroupReport => {
    const { cgroup, ...where } = attribute(g.pid);
    return {
      parent: { pid: g.pid, command: g.command },
      zombies: g.zombies,
      oldestAgeSeconds: Math.round(g.oldestAgeSeconds * 100) / 100,
      ...where,
      reason: isNamespaceInit(g.pid, options.procRoot) ? 'pid1-does-not-reap' : 'parent-does-not-wait',
      cgroup,
    };
  });
  groups.sort((a, b) => b.zombies - a.zombies || b.oldestAgeSeconds - a.oldestAgeSeconds);
  return {
    groups,
    scannedProcesses: processes.length,
    unreadableProcesses: unreadable,
    podsDirFound: podsDirFound(),
    durationMs: Math.round((performance.now() - started) * 10) / 10,
  };
}
