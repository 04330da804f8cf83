// The one stats model: what sexton reaped, forwarded and saw, for logs, `sexton status`,
// Prometheus and the stats file alike (native/tools/status_table.cc prints the status table).
import type { NativeCounters } from '../platform/native';
import type { ZombieGroup } from '../platform/procfs';
import { signalName } from '../platform/signals';
import type { StuckDetail } from '../platform/unkillable';

export interface ReapStats {
  /** Every process sexton reaped, the main child included. */
  reaped: number;
  /** Reaped processes that were not the main child. */
  orphansReaped: number;
  /** Orphans reaped, by command name. */
  orphansByCommand: Record<string, number>;
  /** Orphans reaped without a name (a storm outran naming); not in orphansByCommand. */
  orphansUnnamed: number;
  signals: {
    received: Record<string, number>;
    /** By the signal delivered to the child, after rewrites. */
    forwarded: Record<string, number>;
    dropped: Record<string, number>;
  };
}

export interface StatsSnapshot extends ReapStats {
  version: string;
  pid: number;
  /** PID 1 of its namespace, or a subreaper below some other init. */
  role: 'init' | 'subreaper' | 'parent';
  uptimeSeconds: number;
  /** starting, running, draining, stopping, killing. */
  phase: string;
  mainChild: {
    pid: number;
    command: string;
    /** 'running' until it exits, then 'exited'. */
    state: 'running' | 'exited';
    exitCode?: number;
    signal?: string;
  };
  /** Zombies sexton cannot reap because their live parent never waits, by parent. */
  zombies: ZombieGroup[];
  zombieCount: number;
  /** Present when the /proc scan ran out of its budget (REPORT_SCAN_BUDGET): more zombies may exist. */
  zombieScanCut?: true;
  /** 'foreign': /proc is not sexton's namespace's, so nothing was scanned or named. */
  procfs: 'own' | 'foreign';
  /** sexton's threads (tini has 1). */
  tasks: number;
  /** OOM kills in sexton's memory cgroup since it started; null where unreadable. */
  oomKills: number | null;
  /** Log lines stderr did not take (a reader that stopped reading). */
  logLinesDropped: number;
  /** Live processes SIGKILLed when the grace period ended. */
  survivorsKilled: number;
  /**
   * The pod's budget: the pids cgroup (null where unreadable) and the live processes that are not
   * the main child's (exec sessions, probe leftovers), oldest first; `count` includes those not shown.
   */
  budget: {
    pids: { current: number; max: number | null; version: 1 | 2 } | null;
    outsiders: { count: number; shown: { pid: number; command: string; ageSeconds: number }[] };
  };
  /** With --drain-quiet, once a stop began: how the drain went. */
  drain: DrainSnapshot | null;
  /** What /readyz answers, and the app's sd_notify datagrams by fate. */
  health: {
    readyWhen: 'started' | 'notify';
    ready: boolean;
    reason: string;
    notifications: { accepted: number; malformed: number; oversized: number; foreign: number; descriptors: number };
  };
  /**
   * Processes still alive a moment after that SIGKILL (state D, frozen), at most 20 named, with
   * what each waits on; unkillableCount counts them all. Empty until the grace period ends.
   */
  unkillable: StuckDetail[];
  unkillableCount: number;
}

/** What reached the app, from the network namespace's counters. */
export interface DrainArrivals {
  /** New connections to the app (accepted: PassiveOpens, less sexton's own). */
  connections: number;
  /** Open connections to the app on which data arrived: a lower bound of its requests. */
  requests: number;
  /** Resets the namespace sent: a refused connection is one. */
  resets: number;
}

export type DrainEndReason = 'quiet' | 'cap' | 'second-signal' | 'main-exited';

/** What an operator reads off a drain: the log line at the forward, stats, status, metrics. */
export interface DrainSnapshot {
  quietSeconds: number;
  capSeconds: number;
  /** 'blind': host network, where quiet cannot be told and the cap decides. */
  watch: 'traffic' | 'blind';
  /** Seconds from the stop signal to the forward; null until then. */
  waitedSeconds: number | null;
  /** Seconds from the stop signal to the last traffic seen before the forward; null: none came. */
  lastTrafficSeconds: number | null;
  endedBy: DrainEndReason | null;
  /** Samples that could not be read (each counted as traffic: the cap decides). */
  unreadSamples: number;
  /** What reached the app after the forward: the balancer was still sending. */
  afterForward: DrainArrivals;
}

function byName(counts: number[]): Record<string, number> {
  const out: Record<string, number> = {};
  counts.forEach((count, n) => {
    if (count > 0) out[signalName(n)] = count;
  });
  return out;
}

export function toReapStats(counters: NativeCounters): ReapStats {
  return {
    reaped: counters.reaped,
    orphansReaped: counters.orphansReaped,
    orphansByCommand: counters.orphansByCommand,
    orphansUnnamed: counters.orphansUnnamed,
    signals: {
      received: byName(counters.received),
      forwarded: byName(counters.forwarded),
      dropped: byName(counters.dropped),
    },
  };
}

function describeCounts(counts: Record<string, number>, separator = '×'): string {
  const parts = Object.entries(counts).map(([name, n]) => `${name}${separator}${n}`);
  return parts.length === 0 ? 'none' : parts.join(' ');
}

/** The most frequent commands first. */
export function topCommands(byCommand: Record<string, number>, limit = 5): [string, number][] {
  return Object.entries(byCommand).sort((a, b) => b[1] - a[1]).slice(0, limit);
}

/** One line for the exit summary. */
export function summarize(stats: ReapStats): string {
  const named = topCommands(stats.orphansByCommand).map(([c, n]) => `${c}×${n}`);
  const top = [...named, ...(stats.orphansUnnamed > 0 ? [`${stats.orphansUnnamed} unnamed`] : [])].join(' ');
  const orphans = top ? `${stats.orphansReaped} orphans: ${top}` : `${stats.orphansReaped} orphans`;
  const dropped = Object.keys(
    stats.signals.dropped).length > 0 ? `; dropped ${describeCounts(stats.signals.dropped)}` : '';
  return `reaped ${stats.reaped} (${orphans}); forwarded ${describeCounts(stats.signals.forwarded)}${dropped}`;
}

/** How the main child ended. */
export interface MainExit {
  exitCode: number;
  /** Non-zero when the child was killed by this signal. */
  signal: number;
}

/** The operator's line when a drain that watched traffic forwards the stop signal. */
export function describeDrain(r: DrainSnapshot): string {
  const waited = `waited ${r.waitedSeconds?.toFixed(2) ?? '?'}s`;
  const last = r.lastTrafficSeconds === null
    ? 'no traffic after the stop signal'
    : `last traffic ${r.lastTrafficSeconds.toFixed(2)}s after the stop signal`;
  const why = {
    quiet: `quiet for ${r.quietSeconds}s`,
    cap: r.watch === 'blind'
      ? `the ${r.capSeconds}s cap (host network: quiet cannot be told)`
      : `cut short by the ${r.capSeconds}s cap: traffic had not stopped`,
    'second-signal': 'cut short by a second stop signal',
    'main-exited': 'the main child exited',
  }[r.endedBy ?? 'cap'];
  const unread = r.unreadSamples > 0 ? `; ${r.unreadSamples} sample(s) unreadable` : '';
  return `drain: forwarding the stop signal, ${waited} (${why}); ${last}${unread}`;
}

/** The line at exit when something reached the app after the forward; undefined when nothing did. */
export function describeLateArrivals(r: DrainSnapshot): string | undefined {
  const { connections, requests } = r.afterForward;
  if (connections === 0 && requests === 0) return undefined;
  return `drain: ${connections} connection(s) and ${requests} request(s) reached the app after the stop signal `
    + 'was forwarded: the balancer was still sending (raise --drain-delay or --drain-quiet)';
}
