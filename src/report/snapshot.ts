// The stats snapshot: everything sexton knows, in one object for status, metrics and the file.
import { ScanBudget, taskCount, ZombieGroup } from '../platform/procfs';
import { signalName } from '../platform/signals';
import type { StuckDetail } from '../platform/unkillable';
import type { DrainSnapshot, MainExit, ReapStats, StatsSnapshot } from './stats';
import { VERSION } from '../config/version';

/**
 * What one snapshot may spend reading /proc: at most 100 ms and 32,768 processes (the default
 * pid_max) however many processes the namespace holds. Shared for a second (snapshot-cache.ts),
 * a report costs at most a tenth of a core.
 */
export const REPORT_SCAN_BUDGET: ScanBudget = { entries: 32_768, ms: 100 };

export interface SnapshotInput {
  /** sexton's own pid, and the wall clock now. */
  pid: number;
  now: number;
  role: StatsSnapshot['role'];
  startedAt: number;
  phase: string;
  mainPid: number;
  mainExit?: MainExit;
  command: string[];
  stats: ReapStats;
  zombies: ZombieGroup[];
  /** false: the scan ran out of its budget, and the zombies are those it saw. */
  zombieScanComplete?: boolean;
  procTrusted: boolean;
  oomKills?: number;
  logLinesDropped: number;
  survivorsKilled: number;
  drain?: DrainSnapshot | null;
  health: StatsSnapshot['health'];
  budget: StatsSnapshot['budget'];
  unkillable: Unkillable;
}

/** What was still alive a moment after SIGKILL: named up to a limit, the rest counted. */
export interface Unkillable {
  named: StuckDetail[];
  more: number;
}

export function buildSnapshot(i: SnapshotInput): StatsSnapshot {
  const exit = i.mainExit;
  return {
    version: VERSION,
    pid: i.pid,
    role: i.role,
    uptimeSeconds: (i.now - i.startedAt) / 1000,
    phase: i.phase,
    mainChild: {
      pid: i.mainPid,
      command: i.command.join(' '),
      state: exit ? 'exited' : 'running',
      ...(exit && (exit.signal ? { signal: signalName(exit.signal) } : { exitCode: exit.exitCode })),
    },
    ...i.stats,
    zombies: i.zombies,
    zombieCount: i.zombies.reduce((sum, z) => sum + z.zombies, 0),
    ...(i.zombieScanComplete === false && { zombieScanCut: true }),
    procfs: i.procTrusted ? 'own' : 'foreign',
    tasks: taskCount(),
    oomKills: i.oomKills ?? null,
    logLinesDropped: i.logLinesDropped,
    survivorsKilled: i.survivorsKilled,
    drain: i.drain ?? null,
    budget: i.budget,
    health: i.health,
    unkillable: i.unkillable.named,
    unkillableCount: i.unkillable.named.length + i.unkillable.more,
  };
}
