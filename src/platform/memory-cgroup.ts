// sexton's memory cgroup (v1 or v2: its limit and its count of OOM kills) and what /proc says of
// sexton's own memory: the readers init/memory.ts decides the OOM policy from.
import { cgroupCandidates } from './pids-cgroup';
import { readText as read } from './read-text';

export interface MemoryCgroup {
  dir: string;
  v2: boolean;
  /** undefined when unlimited. */
  limitBytes?: number;
}

/**
 * sexton's memory cgroup, v1 or v2. Inside a container /proc/self/cgroup may name a path the
 * container's /sys/fs/cgroup does not have (no cgroup namespace): then the mount's root is it.
 */
export function findMemoryCgroup(root = '/sys/fs/cgroup', procRoot = '/proc'): MemoryCgroup | undefined {
  for (const { dir, v2: isV2 } of cgroupCandidates('memory', root, procRoot)) {
    const limit = read(`${dir}/${isV2 ? 'memory.max' : 'memory.limit_in_bytes'}`);
    if (limit === undefined) continue;
    const bytes = Number(limit.trim());
    // v1 writes "no limit" as a huge page-aligned number, v2 as "max".
    return { dir, v2: isV2, limitBytes: Number.isFinite(bytes) && bytes < 2 ** 62 ? bytes : undefined };
  }
  return undefined;
}

/** What the cgroup is charged now, every member's pages and the page cache they brought in. */
export function cgroupChargeBytes(cgroup: MemoryCgroup): number | undefined {
  const text = read(`${cgroup.dir}/${cgroup.v2 ? 'memory.current' : 'memory.usage_in_bytes'}`);
  const bytes = Number(text?.trim());
  return text !== undefined && Number.isFinite(bytes) ? bytes : undefined;
}

/** The cgroup's count of OOM kills (memory.events or memory.oom_control), where readable. */
export function oomKillCount(cgroup: MemoryCgroup): number | undefined {
  const text = read(`${cgroup.dir}/${cgroup.v2 ? 'memory.events' : 'memory.oom_control'}`);
  const m = text && /^oom_kill (\d+)$/m.exec(text);
  return m ? Number(m[1]) : undefined;
}

/** sexton's oom_score_adj and resident bytes, and the machine's memory (/proc/meminfo). */
export function ownMemory(procRoot = '/proc'): { oomScoreAdj: number; residentBytes: number; totalBytes: number } {
  const kib = (text: string | undefined, key: string) => new RegExp(`^${key}:\\s+(\\d+) kB$`, 'm').exec(text ?? '')?.[
    1];
  const resident = kib(read(`${procRoot}/self/status`), 'VmRSS');
  const total = kib(read(`${procRoot}/meminfo`), 'MemTotal');
  return {
    oomScoreAdj: Number(read(`${procRoot}/self/oom_score_adj`) ?? 0) || 0,
    residentBytes: resident === undefined ? 0 : Number(resident) * 1024,
    totalBytes: total === undefined ? Number.MAX_SAFE_INTEGER : Number(total) * 1024,
  };
}
