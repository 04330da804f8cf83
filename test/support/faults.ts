// What the fault tests share: C fixtures compiled per run, memory cgroups (v1 on this machine, v2
// in the cgroup v2 guest of test/cgroup2) made and removed per test, and a way in (join the cgroup, drop CAP_SYS_RESOURCE as a container does, then
// unshare).
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fixture, type Pid1Run } from './pid1';
import { hostDescendants, procStat } from './processes';
import { TestCgroup } from './test-cgroup';

export const MEMORY_V1 = '/sys/fs/cgroup/memory';
/** The v2 root where the memory controller is given to its children (the cgroup v2 guest). */
export const MEMORY_V2 = '/sys/fs/cgroup';
/** CAP_SYS_RESOURCE's bit in /proc/PID/status Cap* masks. */
export const CAP_SYS_RESOURCE = 24;

export interface CompiledFixtures {
  dir: string;
  path(name: string): string;
  remove(): void;
}

/**
 * Compiles test/fixtures/faults-NAME.c into a temporary directory with cc -O2; `static`: with
 * musl-gcc -static, to run in an image with no C library, from a directory any uid can read.
 */
export function compileFixtures(names: string[], { static: linkStatically = false } = {}): CompiledFixtures {
  const dir = mkdtempSync(path.join(tmpdir(), 'sexton-faults-'));
  const [cc, flags] = linkStatically ? ['musl-gcc', ['-static']] : ['cc', []];
  if (linkStatically) chmodSync(dir, 0o755);
  for (const name of names) {
    execFileSync(cc, ['-O2', '-Wall', ...flags, '-o', path.join(dir, name), fixture(`faults-${name}.c`)], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  return { dir, path: (name) => path.join(dir, name), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Whether the memory controller is v2's here (the cgroup v2 guest), not v1's (this machine). */
export function memoryIsV2(): boolean {
  return !existsSync(path.join(MEMORY_V1, 'memory.oom_control')) && readOr(path.join(MEMORY_V2, 'cgroup.subtree_control')).includes('memory');
}

function readOr(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** Fails (never skips) where there is no memory controller, v1 or v2, to make cgroups in. */
export function requireMemoryCgroup(): void {
  if (!memoryIsV2()) requireMemoryCgroupV1();
}

/** Fails (never skips) where the tests cannot run as written. */
export function requireMemoryCgroupV1(): void {
  if (!existsSync(path.join(MEMORY_V1, 'memory.oom_control'))) {
    throw new Error(`${MEMORY_V1} has no memory.oom_control: these tests need the cgroup v1 memory controller (and root)`);
  }
}

export class MemoryCgroup extends TestCgroup {
  readonly v2: boolean;

  constructor(label: string, limitMiB: number) {
    const v2 = memoryIsV2();
    super(v2 ? MEMORY_V2 : MEMORY_V1, `sexton-faults-a-${label}`);
    this.v2 = v2;
    const bytes = String(limitMiB * 2 ** 20);
    // No swap on these machines; should there be, the limit must bound it too.
    if (this.v2) {
      this.write('memory.max', bytes);
      if (existsSync(path.join(this.dir, 'memory.swap.max'))) this.write('memory.swap.max', '0');
      return;
    }
    this.write('memory.limit_in_bytes', bytes);
    if (existsSync(path.join(this.dir, 'memory.memsw.limit_in_bytes'))) this.write('memory.memsw.limit_in_bytes', bytes);
  }

  /** Processes the kernel's OOM killer ended in this cgroup (memory.oom_control; v2: memory.events). */
  oomKills(): number {
    return Number(/^oom_kill (\d+)$/m.exec(this.read(this.v2 ? 'memory.events' : 'memory.oom_control'))?.[1] ?? NaN);
  }

  /** What the cgroup is charged now (memory.usage_in_bytes; v2: memory.current). */
  usageBytes(): number {
    return Number(this.read(this.v2 ? 'memory.current' : 'memory.usage_in_bytes'));
  }

  tasks(): number[] {
    return this.procs();
  }

  /**
   * argv that joins this cgroup, gives up CAP_SYS_RESOURCE (so that no process inside may
   * lower an oom_score_adj, as in a container) and then runs `argv`.
   */
  launcher(): string[] {
    return ['/bin/sh', '-c', `echo $$ > ${this.dir}/cgroup.procs && exec setpriv --bounding-set -sys_resource -- "$@"`, 'sh'];
  }
}

/**
 * Whether the kernel log says the OOM killer took host pid `pid` (its "Killed process PID"
 * line; the longer report around it is rate-limited, that line is not). For the record only:
 * pids are reused.
 */
export function oomKilledPid(pid: number): boolean {
  return execFileSync('dmesg', { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 }).includes(`Killed process ${pid} (`);
}

/** Whether CAP_SYS_RESOURCE is in the process's effective set. */
export function hasSysResource(pid: number): boolean {
  const hex = /^CapEff:\s+([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '0';
  return (BigInt(`0x${hex}`) >> BigInt(CAP_SYS_RESOURCE)) % 2n === 1n;
}

/** A field of /proc/PID/status in kB (VmRSS, RssAnon, RssFile), undefined once gone. */
export function statusKb(pid: number, field: string): number | undefined {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

export function oomScoreAdj(pid: number): number | undefined {
  try {
    return Number(readFileSync(`/proc/${pid}/oom_score_adj`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** A scratch directory for one test: stats files, markers. */
export function scratchDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'sexton-faults-a-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The stats file as JSON, or undefined while it is not there (yet). */
export function readStats(file: string): Record<string, any> | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function comm(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** Host pids of the live hogs (test/fixtures/faults-hog.c) in the namespace of pid1. */
export function liveHogs(pid1: number): number[] {
  return hostDescendants(pid1).filter((pid) => comm(pid) === 'hog' && !['Z', undefined].includes(procStat(pid)?.state));
}

/**
 * The OOM is over: at least one kill, the kernel's count of kills and the live hogs add up to the
 * `hogs` the app starts (not while a victim is still dying, or a worker not yet exec'd: both seen
 * under load), every live hog holds all it asked for, and all of it stays the same for 200 ms.
 * Over at once when PID 1 is gone, for the test to say so.
 */
export async function settle(run: Pid1Run, cgroup: MemoryCgroup, hogMiB: number, hogs: number, timeoutMs = 20_000): Promise<number[]> {
  const state = () => {
    if (procStat(run.pid1) === undefined) return 'PID 1 gone';
    const kills = cgroup.oomKills();
    const live = liveHogs(run.pid1);
    if (kills < 1 || live.length + kills !== hogs) return undefined;
    return live.every((pid) => (statusKb(pid, 'VmRSS') ?? 0) >= hogMiB * 1024) ? `${kills}: ${live.join(' ')}` : undefined;
  };
  const deadline = Date.now() + timeoutMs;
  for (let last: string | undefined; ;) {
    const now = state();
    if (now !== undefined && now === last) break;
    last = now;
    if (Date.now() > deadline) {
      const events = cgroup.read(cgroup.v2 ? 'memory.events' : 'memory.oom_control').replace(/\n/g, ' ');
      const counts = `${liveHogs(run.pid1).length} live hog(s) + ${cgroup.oomKills()} kill(s), of ${hogs}`;
      throw new Error(`no settled OOM after ${timeoutMs / 1000} s (${counts}; ${events}; stderr: ${run.stderr().slice(-300)})`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return liveHogs(run.pid1);
}
