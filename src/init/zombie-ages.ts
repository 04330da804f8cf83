// How long sexton has known each zombie: a parent is blamed for holding zombies only for those
// it has held at least ZOMBIE_BLAME_MS (as the harness counts lingering zombies), so a parent
// that reaps its children a few milliseconds late (PostgreSQL) is never called a leak.
//
// Why "known", not "dead for": the kernel keeps no time of death. /proc/PID/stat's start time
// is when the process started, so a worker that ran an hour and exited a millisecond ago would
// look an hour dead. What is sound is a lower bound: the zombie (the same pid and start time,
// so not a reused pid) was already a zombie at an earlier look of sexton's, that long ago.
// Every /proc look of the init records what it sees (the warm-up look 100 ms after the start,
// each status, metrics or stats-file look, the stop); a zombie first seen at the stop is looked
// at again ZOMBIE_BLAME_MS later if sexton is still there (process-tree.ts).
import type { ProcessInfo } from '../platform/procfs';

export const ZOMBIE_BLAME_MS = 500;

const keyOf = (p: ProcessInfo) => `${p.pid}:${p.startTime}`;

export class ZombieAges {
  private readonly firstSeen = new Map<string, number>();

  /** Records the zombies of one look; forgets those reaped since. */
  look(processes: ProcessInfo[], nowMs: number): void {
    const seen = new Map<string, number>();
    for (const p of processes) {
      if (p.state !== 'Z') continue;
      seen.set(keyOf(p), this.firstSeen.get(keyOf(p)) ?? nowMs);
    }
    this.firstSeen.clear();
    for (const [key, since] of seen) this.firstSeen.set(key, since);
  }

  /** Known for at least ZOMBIE_BLAME_MS at `nowMs` (by the last look). */
  isOld(p: ProcessInfo, nowMs: number): boolean {
    const since = this.firstSeen.get(keyOf(p));
    return since !== undefined && nowMs - since >= ZOMBIE_BLAME_MS;
  }

  /** `processes` without the zombies known for less than ZOMBIE_BLAME_MS. */
  withoutYoung(processes: ProcessInfo[], nowMs: number): { kept: ProcessInfo[]; young: number } {
    const kept = processes.filter((p) => p.state !== 'Z' || this.isOld(p, nowMs));
    return { kept, young: processes.length - kept.length };
  }
}
