// The PID namespace a run lives in, seen from outside: how it is made, its PID 1, its processes,
// its pids cgroup. The one place for these: the harness, the tests and the bench all use it.
import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { descendantsOf, listProcesses, ProcessInfo, readProcess } from '../platform/procfs';

/** A pids cgroup (v1 here; v2 where it has the controller) that the run is started in. */
export function makePidsCgroup(limit: number): { dir: string; remove: () => void } {
  const v2 = '/sys/fs/cgroup';
  const hasV2Pids = (() => {
    try {
      return readFileSync(`${v2}/cgroup.controllers`, 'utf8').split(/\s+/).includes('pids');
    } catch {
      return false;
    }
  })();
  const base = hasV2Pids ? v2 : '/sys/fs/cgroup/pids';
  const dir = path.join(base, `sexton-harness-${process.pid}-${Date.now()}`);
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'pids.max'), String(limit));
  return {
    dir,
    remove: () => {
      try {
        rmdirSync(dir);
      } catch {
        // still has members for a moment; the kernel removes nothing by itself, so try later
        setTimeout(() => { try { rmdirSync(dir); } catch { /* give up */ } }, 500).unref();
      }
    },
  };
}

/**
 * Runs what follows as PID 1 of a fresh PID namespace with its own /proc. unshare forwards no
 * signal and reports no pid: PID 1 is its child (childrenOf), and SIGKILL to unshare takes the
 * whole namespace down (--kill-child).
 */
export const PID_NAMESPACE: readonly string[] = ['unshare', '--pid', '--fork', '--mount-proc', '--kill-child', '--'];

export function inPidNamespace(argv: readonly string[]): string[] {
  return [...PID_NAMESPACE, ...argv];
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
    const stat = readFileSync(`/proc/${pid1}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' || fields[0] === 'X' || (Number(fields[6]) & PF_EXITING) !== 0;
  } catch {
    return true;
  }
}
