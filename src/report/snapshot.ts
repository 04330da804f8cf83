// The stats snapshot: everything sexton knows, in one object for status, metrics and the file.
import { taskCount, ZombieGroup } from '../platform/procfs';
import { signalName } from '../platform/signals';
import type { DrainSnapshot, MainExit, ReapStats, StatsSnapshot } from './stats';
import { VERSION } from '../config/version';

export interface SnapshotInput {
  role: StatsSnapshot['role'];
  startedAt: number;
  phase: string;
  mainPid: number;
  mainExit?: MainExit;
  command: string[];
  stats: ReapStats;
  zombies: ZombieGroup[];
  procTrusted: boolean;
  oomKills?: number;
  logLinesDropped: number;
  survivorsKilled: number;
  drain?: DrainSnapshot | null;
  health: StatsSnapshot['health'];
}

export function buildSnapshot(i: SnapshotInput): StatsSnapshot {
  const exit = i.mainExit;
  return {
    version: VERSION,
    pid: process.pid,
    role: i.role,
    uptimeSeconds: (Date.now() - i.startedAt) / 1000,
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
    procfs: i.procTrusted ? 'own' : 'foreign',
    tasks: taskCount(),
    oomKills: i.oomKills ?? null,
    logLinesDropped: i.logLinesDropped,
    survivorsKilled: i.survivorsKilled,
    drain: i.drain ?? null,
    health: i.health,
  };
}
