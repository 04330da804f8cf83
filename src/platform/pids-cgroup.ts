// The container's pids budget: pids.current and pids.max of the pids cgroup sexton is in, v1 or
// v2. Every task counts (threads and zombies too): the app, its probes and exec sessions, and
// sexton's own threads share it, and a fork past it fails with EAGAIN.
import { readFileSync } from 'node:fs';

export interface PidsBudget {
  /** Tasks in the cgroup now. */
  current: number;
  /** null: no limit ("max"). */
  max: number | null;
  version: 1 | 2;
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'latin1').trim();
  } catch {
    return undefined;
  }
}

/**
 * The pids cgroup's files, where readable: the path /proc/self/cgroup names, else the mount's
 * root (a container without a cgroup namespace sees its own cgroup there).
 */
export function readPidsBudget(root = '/sys/fs/cgroup', procRoot = '/proc'): PidsBudget | undefined {
  const lines = (read(`${procRoot}/self/cgroup`) ?? '').split('\n');
  const v1 = lines.find((l) => l.split(':')[1]?.split(',').includes('pids'));
  const v2 = lines.find((l) => l.startsWith('0::'));
  const candidates: [string, 1 | 2][] = [];
  if (v1) candidates.push([`${root}/pids${v1.split(':')[2]}`, 1], [`${root}/pids`, 1]);
  if (v2) candidates.push([`${root}${v2.slice(3)}`, 2], [root, 2]);
  for (const [dir, version] of candidates) {
    const current = read(`${dir}/pids.current`);
    const max = read(`${dir}/pids.max`);
    if (current === undefined || max === undefined || !/^\d+$/.test(current)) continue;
    return { current: Number(current), max: /^\d+$/.test(max) ? Number(max) : null, version };
  }
  return undefined;
}
