// The stats snapshot: everything sexton knows, in one object for status, metrics and the file.
import { taskCount, ZombieGroup } from '../platform/procfs';
import { signalName } from '../platform/signals';
import type { MainExit, ReapStats, StatsSnapshot } from './stats';

declare const SEXTON_VERSION: string;

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
  health: StatsSnapshot['health'];
}

export function buildSnapshot(i: SnapshotInput): StatsSnapshot {
  const exit = i.mainExit;
  return {
    version: typeof SEXTON_VERSION === 'string' ? SEXTON_VERSION : 'dev',
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
    health: i.health,
  };
}
