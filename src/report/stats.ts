// The one stats model: what sexton reaped, forwarded and saw, for logs, `sexton status`,
// Prometheus and the stats file alike.
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

/** One line for `sexton status`. */
export function formatDrain(d: DrainSnapshot): string {
  const watch = d.watch === 'blind' ? ', host network: the cap decides' : '';
  const head = `quiet ${d.quietSeconds}s, cap ${d.capSeconds}s${watch}`;
  const last = d.lastTrafficSeconds === null ? 'no traffic after the stop signal' : `last traffic at ` +
    `+${d.lastTrafficSeconds}s`;
  if (d.waitedSeconds === null) return `${head}; waiting, ${last}`;
  const late = d.afterForward;
  return `${head}; forwarded at +${d.waitedSeconds}s (${d.endedBy}), ${last}; after ` +
    `it: ${late.connections} connections, ${late.requests} requests, ${late.resets} resets`;
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

function describeNotifications(n: StatsSnapshot['health']['notifications']): string {
  const ignored = (['malformed', 'oversized', 'foreign'] as const).filter((k) => n[k] > 0).map((k) => `${n[k]} ${k}`);
  const fds = n.descriptors > 0 ? `; ${n.descriptors} carried descriptors (closed)` : '';
  return `${n.accepted} accepted${ignored.length ? `, ignored ${ignored.join(', ')}` : ''}${fds}`;
}

/** The table `sexton status` prints. */
export function formatStatus(s: StatsSnapshot): string {
  const child = s.mainChild.state === 'running'
    ? `pid ${s.mainChild.pid} running: ${s.mainChild.command}`
    : `pid ${s.mainChild.pid} exited (${s.mainChild.signal ?? `code ${s.mainChild.exitCode}`}): ${s.mainChild.command}`;
  const rows: [string, string][] = [
    ['sexton', `${s.version}, pid ${s.pid} (${s.role}), up ${s.uptimeSeconds.toFixed(0)} s, ${s.phase}`],
    ['main child', child],
    ['reaped', `${s.reaped} (${s.orphansReaped} orphans)`],
    ['orphans by command', topCommands(s.orphansByCommand).map(([c, n]) => `${c} ${n}`).join(', ') || 'none'],
    ['orphans unnamed',
      `${s.orphansUnnamed}${s.orphansUnnamed > 0 ? ' (reaped in a storm faster than they could be named)' : ''}`],
    ['signals received', describeCounts(s.signals.received, ' ')],
    ['signals forwarded', describeCounts(s.signals.forwarded, ' ')],
    ['signals dropped', describeCounts(s.signals.dropped, ' ')],
    ['zombies', String(s.zombieCount)],
    ['threads', String(s.tasks)],
    ['OOM kills', s.oomKills === null ? 'unknown (memory cgroup not readable)' : String(s.oomKills)],
    ['log lines dropped', String(s.logLinesDropped)],
    ...(s.drain ? [['drain', formatDrain(s.drain)] as [string, string]] : []),
    ['ready', `${s.health.ready ? 'yes' : 'no'}: ${s.health.reason} (--ready-when ${s.health.readyWhen})`],
    ...(s.health.readyWhen === 'notify' ? [['sd_notify datagrams', describeNotifications(s.health.notifications)] as [
      string, string]] : []),
    ...(s.unkillableCount > 0 ? [['could not kill', `${s.unkillableCount} (still alive after SIGKILL)`] as [string,
      string]] : []),
  ];
  const { pids, outsiders } = s.budget;
  rows.push(['pids', pids
    ? `${pids.current} of ${pids.max ?? 'no limit'} (cgroup v${pids.version}; every task counts, zombies ` +
      `too)` : 'unknown (no pids cgroup readable)']);
  rows.push(['not the main child\'s', outsiders.count === 0 ? 'none'
    : `${outsiders.count} process(es) (exec sessions, probe leftovers): the stop sequence ends them too`]);
  const width = Math.max(...rows.map(([k]) => k.length));
  const lines = rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`);
  for (const z of s.zombies) {
    lines.push(`  held by pid ${z.pid} (${z.command}): ${z.zombies}, oldest ${z.oldestAgeSeconds.toFixed(0)} s`);
  }
  for (const o of outsiders.shown) lines.push(
    `  ! pid ${o.pid} (${o.command}), up ${o.ageSeconds} s, outside the main child's tree`);
  if (outsiders.count > outsiders.shown.length) lines.push(`  ! and ${outsiders.count - outsiders.shown.length} more`);
  for (const u of s.unkillable) {
    const on = u.mount ? `, ${u.mount.via} on ${u.mount.fstype} ${u.mount.source} at ${u.mount.mountPoint}` : '';
    lines.push(
      `  could not kill pid ${u.pid} (${u.command}): state ${u.state}, wchan ${u.wchan ?? '?'}, ` +
        `syscall ${u.syscall ?? '?'}${u.killPending ? ', SIGKILL pending' : ''}${on}`);
  }
  return `${lines.join('\n')}\n`;
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
