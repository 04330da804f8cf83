// The container's pids budget: pids.current and pids.max of the pids cgroup sexton is in, v1 or
// v2. Every task counts (threads and zombies too): the app, its probes and exec sessions, and
// sexton's own threads share it, and a fork past it fails with EAGAIN.
import { readText } from './read-text';

export interface PidsBudget {
  /** Tasks in the cgroup now. */
  current: number;
  /** null: no limit ("max"). */
  max: number | null;
  version: 1 | 2;
}

function read(path: string): string | undefined {
  return readText(path)?.trim();
}

/**
 * Where a controller's files may be, in order: the path /proc/self/cgroup names, else the
 * mount's root (a container without a cgroup namespace sees its own cgroup there). The one
 * discovery of sexton's cgroups, for the pids budget and the memory cgroup alike.
 */
export function cgroupCandidates(controller: string, root = '/sys/fs/cgroup', procRoot = '/proc'): {
  dir: string; v2: boolean }[] {
  const lines = (read(`${procRoot}/self/cgroup`) ?? '').split('\n');
  const v1 = lines.find((l) => l.split(':')[1]?.split(',').includes(controller));
  const v2 = lines.find((l) => l.startsWith('0::'));
  const out: { dir: string; v2: boolean }[] = [];
  if (v1) out.push({ dir: `${root}/${controller}${v1.split(':')[2]}`, v2: false },
    { dir: `${root}/${controller}`, v2: false });
  if (v2) out.push({ dir: `${root}${v2.slice(3)}`, v2: true }, { dir: root, v2: true });
  return out;
}

/** The pids cgroup's files, where readable. */
export function readPidsBudget(root = '/sys/fs/cgroup', procRoot = '/proc'): PidsBudget | undefined {
  for (const { dir, v2 } of cgroupCandidates('pids', root, procRoot)) {
    const current = read(`${dir}/pids.current`);
    const max = read(`${dir}/pids.max`);
    if (current === undefined || max === undefined || !/^\d+$/.test(current)) continue;
    return { current: Number(current), max: /^\d+$/.test(max) ? Number(max) : null, version: v2 ? 2 : 1 };
  }
  return undefined;
}
