// Processes as /proc shows them: who is left, in what state, under which parent.
import { closeSync, opendirSync, openSync, readdirSync, readFileSync, readlinkSync, readSync } from 'node:fs';
import { readText } from './read-text';

/**
 * Whether /proc shows sexton's own PID namespace. A namespace made without its own /proc mount
 * (`unshare --pid` without --mount-proc) shows the parent's processes: their pids mean other
 * processes here, and their command lines are other tenants' (secrets included).
 */
export function procShowsOwnNamespace(procRoot = '/proc', pid = process.pid): boolean {
  try {
    return readlinkSync(`${procRoot}/self`) === String(pid);
  } catch {
    return false;
  }
}

export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** Process group id (stat field 5). */
  pgid: number;
  /** R running, S sleeping, D uninterruptible, T stopped, Z zombie, ... */
  state: string;
  /** The kernel's 15-character name (comm). */
  name: string;
  /** Clock ticks since boot (stat field 22): with pid, identifies a process across pid reuse. */
  startTime: number;
  /**
   * SIGKILL sent and not yet acted on. From stat's pending-signal field (the thread's private
   * set): a fatal signal is put there on every thread of the group when it is sent, and leaves
   * it only when the thread dies, so it is set exactly while a kill waits.
   */
  killPending: boolean;
}

const STATE_WORDS: Record<string, string> = {
  R: 'running', S: 'sleeping', D: 'uninterruptible', T: 'stopped', t: 'traced', Z: 'zombie', X: 'dead', I: 'idle',
};

export function describeState(state: string): string {
  return `${state} ${STATE_WORDS[state] ?? 'unknown'}`;
}

/** /proc/self/cmdline or environ as the kernel holds them: one Buffer a word, bytes unchanged. */
export function ownWords(file: 'cmdline' | 'environ'): Buffer[] | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(`/proc/self/${file}`);
  } catch {
    return undefined;
  }
  const words: Buffer[] = [];
  for (let start = 0; start < bytes.length;) {
    const end = bytes.indexOf(0, start);
    const stop = end < 0 ? bytes.length : end;
    words.push(bytes.subarray(start, stop));
    start = stop + 1;
  }
  return words;
}

/** sexton's own threads, the main one included. */
export function taskCount(): number {
  try {
    return readdirSync('/proc/self/task').length;
  } catch {
    return 0;
  }
}

/**
 * One buffer for every stat file (a line of a few hundred bytes): one read, no stat call, no
 * allocation per file. Scanning a node of 5,000 processes spends its time here.
 */
const statBuffer = Buffer.alloc(4096);

function readStat(file: string): string {
  const fd = openSync(file, 'r');
  try {
    return statBuffer.toString('latin1', 0, readSync(fd, statBuffer, 0, statBuffer.length, 0));
  } finally {
    closeSync(fd);
  }
}

/**
 * The one reader of a /proc/PID/stat line: its name (field 2), and field(n), n counted from 1
 * as in proc(5). The name may hold spaces and parentheses: the fields start after its last ')'.
 */
export function parseStat(stat: string): { name: string; field(n: number): string } | undefined {
  const open = stat.indexOf('(');
  const close = stat.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const fields = stat.slice(close + 2).split(' ');
  return { name: stat.slice(open + 1, close), field: (n) => fields[n - 3] ?? '' };
}

export function readProcess(pid: number, procRoot = '/proc'): ProcessInfo | undefined {
  try {
    const stat = parseStat(readStat(`${procRoot}/${pid}/stat`));
    if (!stat || !/^\d+$/.test(stat.field(4))) return undefined;  // not a stat file
    return {
      pid,
      ppid: Number(stat.field(4)),
      pgid: Number(stat.field(5)),
      state: stat.field(3),
      name: stat.name,
      startTime: Number(stat.field(22)),
      killPending: (Number(stat.field(31)) & (1 << 8)) !== 0,
    };
  } catch {
    return undefined;
  }
}

/**
 * Full command line; the bracketed name when it has none (zombies, kernel threads) or is gone.
 * Read only for the few processes a report names: scans read stat alone.
 */
export function commandOf(p: ProcessInfo, procRoot = '/proc'): string {
  // A process asleep uninterruptibly (frozen, a dead NFS server) may hold the lock on its memory
  // that reading its command line waits for: sexton's final stats file waited on a frozen one
  // until its thaw. Its name, from stat, is all that can be had without waiting.
  if (p.state === 'D') return `[${p.name}]`;
  try {
    const command = readFileSync(`${procRoot}/${p.pid}/cmdline`, 'utf8').replace(/\0+$/, '').replace(/\0/g, ' ');
    if (command) return command;
  } catch {
    // gone since the scan
  }
  return `[${p.name}]`;
}

/** Every process in `procRoot`; entries that cannot be read (gone, denied, garbled) are counted in `skipped`. */
export function listProcesses(procRoot = '/proc', skipped?: { count: number }): ProcessInfo[] {
  const out: ProcessInfo[] = [];
  for (const entry of readdirSync(procRoot)) {
    if (!/^\d+$/.test(entry)) continue;
    const info = readProcess(Number(entry), procRoot);
    if (info) out.push(info);
    else if (skipped) skipped.count++;
  }
  return out;
}

/** How much of /proc a report may read. The stop sequence reads all of it; a report, this much. */
export interface ScanBudget {
  entries: number;
  ms: number;
}

/**
 * The processes of procRoot that keep() accepts, read as the directory is walked (memory for
 * those kept, not for every process), stopping after budget.entries processes or budget.ms.
 * complete: whether every entry was read.
 */
export function scanProcesses(keep: (p: ProcessInfo) => boolean, budget: ScanBudget, procRoot = '/proc'): {
  kept: ProcessInfo[]; complete: boolean } {
  const kept: ProcessInfo[] = [];
  const deadline = process.hrtime.bigint() + BigInt(Math.round(budget.ms * 1e6));
  const dir = opendirSync(procRoot);
  let read = 0;
  try {
    for (let entry = dir.readSync(); entry; entry = dir.readSync()) {
      if (!/^\d+$/.test(entry.name)) continue;
      if (read >= budget.entries || (read % 64 === 63 && process.hrtime.bigint() > deadline)) return { kept,
        complete: false };
      read++;
      const info = readProcess(Number(entry.name), procRoot);
      if (info && keep(info)) kept.push(info);
    }
  } finally {
    dir.closeSync();
  }
  return { kept, complete: true };
}

/** Every process below `root` in the parent tree (not root itself). */
export function descendantsOf(root: number, processes = listProcesses()): ProcessInfo[] {
  const children = new Map<number, ProcessInfo[]>();
  for (const p of processes) {
    const siblings = children.get(p.ppid) ?? [];
    siblings.push(p);
    children.set(p.ppid, siblings);
  }
  const out: ProcessInfo[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      out.push(child);
      queue.push(child.pid);
    }
  }
  return out;
}

export interface ZombieGroup {
  /** The live parent that has not waited for its zombies. */
  pid: number;
  command: string;
  zombies: number;
  /** Age of its oldest zombie's process (the kernel keeps no time of death). */
  oldestAgeSeconds: number;
}

/** USER_HZ: the unit of /proc's clock ticks, 100 on every Linux architecture's user ABI. */
export const TICKS_PER_SECOND = 100;

function uptimeSeconds(procRoot: string): number {
  return Number(readFileSync(`${procRoot}/uptime`, 'latin1').split(' ')[0]);
}

/** Seconds since each process started, by pid. */
export function agesSeconds(processes: ProcessInfo[], procRoot = '/proc'): Map<number, number> {
  if (processes.length === 0) return new Map();
  const now = uptimeSeconds(procRoot);
  return new Map(processes.map((p) => [p.pid, Math.max(0, now - p.startTime / TICKS_PER_SECOND)]));
}

/** Zombies grouped by their live parent, leaving out those of `reaper` (it reaps its own). */
export function zombiesByParent(processes: ProcessInfo[], reaper: number, procRoot = '/proc'): ZombieGroup[] {
  const zombies = processes.filter((p) => p.state === 'Z' && p.ppid !== reaper);
  if (zombies.length === 0) return [];
  const now = uptimeSeconds(procRoot);
  const groups = new Map<number, ZombieGroup>();
  for (const z of zombies) {
    const age = Math.max(0, now - z.startTime / TICKS_PER_SECOND);
    const group = groups.get(z.ppid);
    if (group) {
      group.zombies++;
      group.oldestAgeSeconds = Math.max(group.oldestAgeSeconds, age);
    } else {
      const parent = processes.find((p) => p.pid === z.ppid);
      const command = parent ? commandOf(parent, procRoot) : '?';
      groups.set(z.ppid, { pid: z.ppid, command, zombies: 1, oldestAgeSeconds: age });
    }
  }
  return [...groups.values()];
}

/**
 * Descriptors sexton can still open: RLIMIT_NOFILE's soft limit (/proc/self/limits) less those
 * open now. Infinity when unlimited or unreadable (nothing to fit under).
 */
export function descriptorRoom(): number {
  try {
    const limit = /^Max open files\s+(\d+)/m.exec(readText('/proc/self/limits') ?? '')?.[1];
    if (limit === undefined) return Infinity;
    // The directory's own descriptor, opened to list it, is not one of them.
    return Number(limit) - (readdirSync('/proc/self/fd').length - 1);
  } catch {
    return Infinity;
  }
}
