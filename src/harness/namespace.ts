// The PID namespace a run lives in, seen from outside: how it is made, its PID 1, its processes.
// The one place for these: the harness, the tests and the bench all use it.
import { readdirSync, readFileSync } from 'node:fs';
import { descendantsOf, listProcesses, parseStat, ProcessInfo, readProcess } from '../platform/procfs';
import type { NamespaceMode } from './userns';

/**
 * Runs what follows as PID 1 of a fresh PID namespace with its own /proc. unshare forwards no
 * signal and reports no pid: PID 1 is its child (childrenOf), and SIGKILL to unshare takes the
 * whole namespace down (--kill-child).
 */
export const PID_NAMESPACE: readonly string[] = ['unshare', '--pid', '--fork', '--mount-proc', '--kill-child', '--'];

/**
 * The same for a user without CAP_SYS_ADMIN: a user namespace first, where it is root (mapped to
 * itself outside), and may make the PID and mount namespaces. Signals and /proc work from
 * outside as before: the processes in it are the user's own.
 */
export const USER_PID_NAMESPACE: readonly string[] = [
  'unshare', '--user', '--map-root-user', '--pid', '--fork', '--mount-proc', '--kill-child', '--',
];

export function inPidNamespace(argv: readonly string[], mode: NamespaceMode = 'pid'): string[] {
  return [...(mode === 'user' ? USER_PID_NAMESPACE : PID_NAMESPACE), ...argv];
}

/** Host pids of the direct children of pid, over all its threads. */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (text) out.push(...text.split(/\s+/).map(Number));
    }
  } catch {
    // gone
  }
  return out;
}

export function namespacePid(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('NSpid:'));
    return Number(line?.trim().split(/\s+/).at(-1) ?? pid);
  } catch {
    return pid;
  }
}

/** Every process of the namespace whose PID 1 has host pid `pid1`. */
export function namespaceProcesses(pid1: number): ProcessInfo[] {
  const self = readProcess(pid1);
  return self ? [self, ...descendantsOf(pid1, listProcesses())] : [];
}

/** PF_EXITING in /proc/PID/stat's flags (field 9). */
const PF_EXITING = 0x4;

/**
 * Whether PID 1 has begun to exit (or is gone): the kernel is then tearing the namespace down,
 * killing and reaping everything in it, and what /proc shows is no longer the init's doing.
 */
export function pid1Exiting(pid1: number): boolean {
  try {
    const stat = parseStat(readFileSync(`/proc/${pid1}/stat`, 'latin1'));
    const state = stat?.field(3);
    return !stat || state === 'Z' || state === 'X' || (Number(stat.field(9)) & PF_EXITING) !== 0;
  } catch {
    return true;
  }
}
