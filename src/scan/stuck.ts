// `sexton scan --stuck`: the node's processes that SIGKILL cannot end now, each with what it
// waits on and the container and pod it belongs to: why a pod stays Terminating.
//
// A process is stuck when it is in state D (uninterruptible) or has SIGKILL pending, and was so
// at every look over at least --min-age seconds: one look catches ordinary disk waits of a few
// milliseconds, so the CLI looks twice, --min-age apart, and the exporter remembers when it
// first saw each process so (by pid and start time: pids are reused).
import type { ProcessInfo } from '../platform/procfs';
import { describeStuck, StuckDetail } from '../platform/unkillable';
import { attributor, listAll, Placement, ScanOptions } from './scan';

export interface StuckReport extends StuckDetail, Placement {
  /** How long it has been seen stuck, at least (the time between the looks). */
  seenForSeconds: number;
}

export interface StuckResult {
  stuck: StuckReport[];
  /** Stuck processes beyond MAX_STUCK_REPORTED: counted, not described. */
  notDescribed: number;
  minAgeSeconds: number;
  scannedProcesses: number;
  unreadableProcesses: number;
  podsDirFound: boolean | null;
  durationMs: number;
}

/** Described per scan: each costs a handful of /proc reads and up to 256 fdinfo files. */
export const MAX_STUCK_REPORTED = 500;

const isCandidate = (p: ProcessInfo) => p.state === 'D' || (p.killPending && p.state !== 'Z' && p.state !== 'X');
const keyOf = (p: ProcessInfo) => `${p.pid}:${p.startTime}`;

/** When each candidate was first seen, forgotten as soon as a look finds it no longer stuck. */
export class StuckTracker {
  private readonly firstSeen = new Map<string, number>();

  /** Candidates the last look saw, stuck long enough or not yet. */
  get watched(): number {
    return this.firstSeen.size;
  }

  /** Records one look; returns the candidates seen at every look for at least `minAgeMs`. */
  look(processes: ProcessInfo[], nowMs: number, minAgeMs: number): { process: ProcessInfo; seenForMs: number }[] {
    const seen = new Map<string, number>();
    const out: { process: ProcessInfo; seenForMs: number }[] = [];
    for (const p of processes.filter(isCandidate)) {
      const since = this.firstSeen.get(keyOf(p)) ?? nowMs;
      seen.set(keyOf(p), since);
      if (nowMs - since >= minAgeMs) out.push({ process: p, seenForMs: nowMs - since });
    }
    this.firstSeen.clear();
    for (const [key, since] of seen) this.firstSeen.set(key, since);
    return out;
  }
}

export interface StuckLook {
  processes: number;
  unreadable: number;
  found: { process: ProcessInfo; seenForMs: number }[];
}

export function lookForStuck(tracker: StuckTracker, options: ScanOptions, listing = listAll(options),
  nowMs = Date.now()): StuckLook {
  const found = tracker.look(listing.processes, nowMs, options.minAgeSeconds * 1000);
  return { processes: listing.processes.length, unreadable: listing.unreadable, found };
}

/** Describes and places what a look found stuck, the longest stuck first. */
export function reportStuck(look: StuckLook, options: ScanOptions, startedMs: number): StuckResult {
  const { attribute, podsDirFound } = attributor(options);
  const found = [...look.found].sort((a, b) => b.seenForMs - a.seenForMs || a.process.pid - b.process.pid);
  const stuck = found.slice(0, MAX_STUCK_REPORTED).map(({ process, seenForMs }): StuckReport => ({
    ...describeStuck(process, options.procRoot),
    ...attribute(process.pid),
    seenForSeconds: Math.round(seenForMs / 10) / 100,
  }));
  return {
    stuck,
    notDescribed: found.length - stuck.length,
    minAgeSeconds: options.minAgeSeconds,
    scannedProcesses: look.processes,
    unreadableProcesses: look.unreadable,
    podsDirFound: podsDirFound(),
    durationMs: Math.round((performance.now() - startedMs) * 10) / 10,
  };
}

/** The CLI's scan: two looks --min-age apart (one when it is 0); durationMs includes the wait. */
export async function scanStuck(options: ScanOptions): Promise<StuckResult> {
  const tracker = new StuckTracker();
  const started = performance.now();
  let look = lookForStuck(tracker, options);
  // With no candidate at the first look, none can have been stuck for --min-age: no wait.
  if (options.minAgeSeconds > 0 && tracker.watched > 0) {
    await new Promise((resolve) => setTimeout(resolve, options.minAgeSeconds * 1000));
    look = lookForStuck(tracker, options);
  }
  return reportStuck(look, options, started);
}
