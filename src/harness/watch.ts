// Watching a run from outside: find PID 1 below unshare, sample its namespace's zombies through
// /proc, and keep apart the zombies live parents hold (the app's) from those left to PID 1.
import { readlinkSync } from 'node:fs';
import { commandOf, ProcessInfo, readProcess } from '../platform/procfs';
import { childrenOf, namespacePid, namespaceProcesses, pid1Exiting } from './namespace';

/** A zombie whose live parent has not waited for it this long counts as leaked by that parent. */
export const LINGER_MS = 500;
/** A zombie this old when PID 1 exits was not about to be reaped: a working init takes ~1 ms. */
export const LEFT_AT_EXIT_MS = 100;

export interface Sample {
  /** Milliseconds since the run started. */
  atMs: number;
  zombies: number;
  /** Processes in the namespace, PID 1 and zombies included. */
  processes: number;
}

export interface ZombieParent {
  /** The parent's pid inside the namespace. */
  pid: number;
  command: string;
  /** The most zombies it held at once. */
  zombies: number;
  /** How long its oldest zombie had waited, at most. */
  oldestMs: number;
}

const keyOf = (z: ProcessInfo) => `${z.pid}:${z.startTime}`;

function exeOf(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return undefined;
  }
}

/**
 * Whether unshare's child has become the command: until its exec it is a copy of unshare (same
 * executable, comm "unshare"), and an exec that fails never gets further.
 */
function pastExec(pid1: number, unsharePid: number): boolean {
  const own = exeOf(pid1);
  const unshare = exeOf(unsharePid);
  if (own !== undefined && unshare !== undefined) return own !== unshare;
  return readProcess(pid1)?.name !== 'unshare';
}

export class NamespaceWatch {
  /** The fact the verdict needs: PID 1 was seen running the command, past unshare's exec. */
  ran = false;
  readonly samples: Sample[] = [];
  zombiesBeforeStop = 0;
  zombiesHeldByLiveParents = 0;
  /** The last sample's zombies, for what was left at exit. */
  last: { atMs: number; zombies: ProcessInfo[] } = { atMs: 0, zombies: [] };
  private pid1: number | undefined;
  private pid1Started: number | undefined;
  private stopSent = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly parents = new Map<number, ZombieParent>();
  private readonly firstSeen = new Map<string, number>();
  private readonly orphanedSince = new Map<string, number>();

  constructor(
    private readonly unsharePid: number,
    private readonly started: number,
    private readonly onSample?: (sample: Sample) => void,
  ) {}

  /** Samples every `ms` from now on (replacing any earlier cadence). */
  every(ms: number): void {
    clearInterval(this.timer);
    this.timer = setInterval(() => this.sample(), ms);
  }

  end(): void {
    clearInterval(this.timer);
  }

  /** From here on samples no longer count as "before the stop". */
  stopSentNow(): void {
    this.stopSent = true;
  }

  /** Signals PID 1, only while it is still the PID 1 we found: once gone, its pid may be someone else's. */
  signalPid1(signal: NodeJS.Signals): void {
    try {
      if (this.pid1 !== undefined && readProcess(this.pid1)?.startTime === this.pid1Started) {
        process.kill(this.pid1, signal);
      }
    } catch {
      // already gone
    }
  }

  get zombieParents(): ZombieParent[] {
    return [...this.parents.values()];
  }

  get peakZombies(): number {
    return Math.max(0, ...this.samples.map((s) => s.zombies));
  }

  /** Zombies of the last sample that had been there at least `ms`. */
  lingering(ms: number, zombies = this.last.zombies, now = this.last.atMs): ProcessInfo[] {
    return zombies.filter((z) => now - (this.firstSeen.get(keyOf(z)) ?? now) >= ms);
  }

  /** Zombies of the last sample that had been orphaned to PID 1 for at least `ms`. */
  orphanedFor(ms: number): ProcessInfo[] {
    return this.last.zombies.filter((z) => this.last.atMs - (this.orphanedSince.get(keyOf(z)) ?? this.last.atMs) >= ms);
  }

  sample(): void {
    if (this.pid1 === undefined) {
      this.pid1 = childrenOf(this.unsharePid)[0];
      if (this.pid1 === undefined) return;
      this.pid1Started = readProcess(this.pid1)?.startTime;
    }
    if (pid1Exiting(this.pid1)) return;  // the kernel's teardown, not the init's doing
    if (!this.ran) this.ran = pastExec(this.pid1, this.unsharePid);
    const processes = namespaceProcesses(this.pid1);
    // PID 1 may have begun to exit during the scan (PF_EXITING comes before the kernel's teardown
    // reaps anything): what the scan read may then be the teardown's, not the init's. Taken, such a
    // sample hid 20 zombies of an app as PID 1 (a leak reported clean, once in CI as uid 65534).
    if (processes.length === 0 || pid1Exiting(this.pid1)) return;
    const zombies = processes.filter((p) => p.state === 'Z');
    const now = Date.now() - this.started;
    for (const z of zombies) this.track(z, zombies, processes, now);
    const s = { atMs: now, zombies: zombies.length, processes: processes.length };
    this.samples.push(s);
    this.last = { atMs: now, zombies };
    if (!this.stopSent) {
      // A zombie that a parent or the init is about to reap is not left behind: count lingering ones.
      const old = this.lingering(LINGER_MS, zombies, now);
      this.zombiesBeforeStop = old.length;
      this.zombiesHeldByLiveParents = old.filter((z) => z.ppid !== this.pid1).length;
    }
    this.onSample?.(s);
  }

  private track(z: ProcessInfo, zombies: ProcessInfo[], processes: ProcessInfo[], now: number): void {
    const key = keyOf(z);
    const since = this.firstSeen.get(key) ?? now;
    this.firstSeen.set(key, since);
    if (z.ppid === this.pid1) {
      if (!this.orphanedSince.has(key)) this.orphanedSince.set(key, now);
      return;
    }
    // A parent that is just about to wait is not leaking: count zombies that linger.
    if (now - since < LINGER_MS) return;
    const held = zombies.filter((o) => o.ppid === z.ppid);
    const oldestMs = now - Math.min(...held.map((o) => this.firstSeen.get(keyOf(o)) ?? now));
    const known = this.parents.get(z.ppid);
    if (known) {
      known.zombies = Math.max(known.zombies, held.length);
      known.oldestMs = Math.max(known.oldestMs, oldestMs);
      return;
    }
    const parent = processes.find((p) => p.pid === z.ppid);
    // Shown as the program's name and arguments: the path it ran from says little.
    const command = parent ? commandOf(parent).replace(/^\S*\//, '') : '?';
    this.parents.set(z.ppid, { pid: namespacePid(z.ppid), command, zombies: held.length, oldestMs });
  }
}
