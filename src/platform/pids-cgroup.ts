// sexton's pids cgroup: how many tasks (threads included) its container holds against its
// limit. A pod at its pids limit cannot fork, and zombies count against it.
import { readFileSync } from 'node:fs';

function read(file: string): string | undefined {
  try {
    return readFileSync(file, 'latin1').trim();
  } catch {
    return undefined;
  }
}

export interface PidsUsage {
  current: number;
  /** null: no limit ("max"). */
  limit: number | null;
}

/**
 * v1 or v2. Inside a container /proc/self/cgroup may name a path the container's /sys/fs/cgroup
 * does not have (no cgroup namespace): then the mount's root is the container's cgroup.
 */
export function readPidsUsage(root = '/sys/fs/cgroup', procRoot = '/proc'): PidsUsage | null {
  const lines = (read(`${procRoot}/self/cgroup`) ?? '').split('\n');
  const v1 = lines.find((l) => l.split(':')[1]?.split(',').includes('pids'));
  const v2 = lines.find((l) => l.startsWith('0::'));
  const dirs: string[] = [];
  if (v1) dirs.push(`${root}/pids${v1.split(':')[2]}`, `${root}/pids`);
  if (v2) dirs.push(`${root}${v2.slice(3)}`, root);
  for (const dir of dirs) {
    const current = Number(read(`${dir}/pids.current`));
    const max = read(`${dir}/pids.max`);
    if (!Number.isInteger(current) || max === undefined) continue;
    const limit = Number(max);
    return { current, limit: max === 'max' || !Number.isInteger(limit) ? null : limit };
  }
  return null;
}
