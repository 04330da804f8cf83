// The pids cgroup a run starts in (like a pod's pid limit): cgroup v1's pids hierarchy where it is
// writable (root), else a cgroup v2 subtree delegated to this user (a systemd user slice, or the
// cgroup this process was started in), else none, said in one line so that the run goes on without
// the limit instead of failing.
import { accessSync, constants, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

export interface PidsCgroup {
  dir: string;
  remove(): void;
}

export type PidsLimit = { cgroup: PidsCgroup; unavailable?: undefined } | { cgroup?: undefined; unavailable: string };

const V1_PIDS = '/sys/fs/cgroup/pids';

function writable(file: string): boolean {
  try {
    accessSync(file, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function read(file: string): string | undefined {
  try {
    return readFileSync(file, 'latin1');
  } catch {
    return undefined;
  }
}

/** Where cgroup v2 is mounted (/sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid host). */
export function cgroup2Mount(mountinfo = read('/proc/self/mountinfo') ?? ''): string | undefined {
  for (const line of mountinfo.split('\n')) {
    const [before, after] = line.split(' - ');
    if (after?.split(' ')[0] === 'cgroup2') return before.split(' ')[4];
  }
  return undefined;
}

/** This process's cgroup v2 path ("0::/user.slice/..."), relative to the mount. */
export function ownCgroup2Path(procSelfCgroup = read('/proc/self/cgroup') ?? ''): string | undefined {
  return procSelfCgroup.split('\n').find((l) => l.startsWith('0::'))?.slice(3).trim() || undefined;
}

/**
 * The nearest cgroup at or above `own` (a path under `mount`) whose children get the pids
 * controller and whose cgroup.procs this user may write: moving a process between cgroups needs
 * write access to their common ancestor's cgroup.procs, and a child of this one has that ancestor.
 */
export function delegatedPidsParent(mount: string, own: string, canWrite = writable): string | undefined {
  const parts = own.split('/').filter(Boolean);
  for (let depth = parts.length; depth >= 0; depth--) {
    const dir = path.join(mount, ...parts.slice(0, depth));
    const controls = (read(path.join(dir, 'cgroup.subtree_control')) ?? '').split(/\s+/);
    if (controls.includes('pids') && canWrite(dir) && canWrite(path.join(dir, 'cgroup.procs'))) return dir;
  }
  return undefined;
}

/**
 * The cgroup.type to give the run's new cgroup, read as the kernel made it, so that processes may
 * join it. A child of a cgroup that holds processes itself and hands a threaded controller (pids)
 * to its children is "domain invalid": v2 lets no process sit beside domain children. It may be
 * made threaded, and pids limits threaded cgroups as it limits domains. This is the case of a
 * harness started in the very cgroup delegated to it, which it cannot leave for a leaf of its own:
 * every child of that cgroup is invalid as a domain while the harness is in it.
 */
export function typeToJoin(madeAs: string): 'threaded' | undefined {
  return madeAs.trim() === 'domain invalid' ? 'threaded' : undefined;
}

function uid(): string {
  return String(process.getuid?.() ?? '?');
}

export function makePidsCgroup(limit: number): PidsLimit {
  let parent: string | undefined;
  if (writable(V1_PIDS)) parent = V1_PIDS;
  else {
    const mount = cgroup2Mount();
    const own = ownCgroup2Path() ?? '/';
    parent = mount === undefined ? undefined : delegatedPidsParent(mount, own);
    if (parent === undefined) {
      const where = mount === undefined
        ? 'no cgroup v2 is mounted'
        : `no cgroup v2 at or above ${path.join(mount, ...own.split('/'))} ` +
          `delegates the pids controller to uid ${uid()}`;
      return {
        unavailable: `the pids limit is unavailable: ${V1_PIDS} is not writable and ${where}; ` +
          'the run goes on without it',
      };
    }
  }
  const dir = path.join(parent, `sexton-harness-${process.pid}-${Date.now()}`);
  try {
    mkdirSync(dir);
    const type = read(path.join(dir, 'cgroup.type'));
    const joinable = type === undefined ? undefined : typeToJoin(type);
    if (joinable) writeFileSync(path.join(dir, 'cgroup.type'), joinable);
    writeFileSync(path.join(dir, 'pids.max'), String(limit));
  } catch (error) {
    try { rmdirSync(dir); } catch { /* never made */ }
    const why = (error as Error).message.split('\n')[0];
    return { unavailable: `the pids limit is unavailable: ${dir}: ${why}; the run goes on without it` };
  }
  return {
    cgroup: {
      dir,
      remove: () => {
        try {
          rmdirSync(dir);
        } catch {
          // still has members for a moment; the kernel removes nothing by itself, so try later
          setTimeout(() => { try { rmdirSync(dir); } catch { /* give up */ } }, 500).unref();
        }
      },
    },
  };
}
