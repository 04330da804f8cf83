// Prometheus text exposition of the stats snapshot, served over HTTP only when --metrics is set.
import type { DrainSnapshot, StatsSnapshot } from '../stats';
import type { Routes } from './http-server';
import { ProcessMetrics, readProcessMetrics } from './process-metrics';

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

type Sample = [labels: Record<string, string>, value: number];

export function family(name: string, type: 'counter' | 'gauge', help: string, samples: Sample[]): string {
  const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`];
  for (const [labels, value] of samples) {
    const text = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',');
    lines.push(`${name}${text ? `{${text}}` : ''} ${value}`);
  }
  return lines.join('\n');
}

/** Signals every scrape shows, at 0 until they come: a rate() needs the series before the first one. */
const COMMON_SIGNALS = ['HUP', 'INT', 'QUIT', 'USR1', 'USR2', 'TERM', 'WINCH'];

function bySignal(counts: Record<string, number>): Sample[] {
  const names = [...new Set([...COMMON_SIGNALS, ...Object.keys(counts)])];
  return names.map((signal) => [{ signal }, counts[signal] ?? 0]);
}

/** How many command names get a series of their own (native/reaped_commands.cc's table). */
export const COMMAND_LABEL_CAP = 64;

function processFamilies(p: ProcessMetrics): string[] {
  return [
    family('process_start_time_seconds', 'gauge', 'Start time of the process since unix epoch in seconds.',
      [[{}, p.startTimeSeconds]]),
    family('process_cpu_seconds_total', 'counter', 'Total user and system CPU time spent in seconds.',
      [[{}, p.cpuSeconds]]),
    family('process_resident_memory_bytes', 'gauge', 'Resident memory size in bytes.', [[{}, p.residentBytes]]),
    family('process_virtual_memory_bytes', 'gauge', 'Virtual memory size in bytes.', [[{}, p.virtualBytes]]),
    family('process_open_fds', 'gauge', 'Number of open file descriptors.', [[{}, p.openFds]]),
    ...(Number.isNaN(p.maxFds) ? [] : [family('process_max_fds', 'gauge', 'Maximum number of open file descriptors.',
      [[{}, p.maxFds]])]),
    family('sexton_resident_anonymous_memory_bytes', 'gauge',
      "sexton's own resident memory (RssAnon); most of the rest is the node binary's file pages, shared with a Node " +
        "app.",
      [[{}, p.residentAnonymousBytes]]),
  ];
}

/** With --drain-quiet, once a stop began: how long the drain waited, and what came after it. */
function drainFamilies(d: DrainSnapshot | null): string[] {
  if (!d) return [];
  const seconds = (v: number | null): Sample[] => (v === null ? [] : [[{}, v]]);
  return [
    family('sexton_drain_waited_seconds', 'gauge', 'Seconds from the stop signal to its forward (absent until then).',
      seconds(d.waitedSeconds)),
    family('sexton_drain_last_traffic_seconds', 'gauge',
      'Seconds from the stop signal to the last traffic that reached the app before the forward (absent: ' +
        'none).', seconds(d.lastTrafficSeconds)),
    family('sexton_drain_capped', 'gauge',
      '1 when the drain cap (--drain-delay) forwarded the stop signal, not quiet.', [
        [{}, d.endedBy === 'cap' ? 1 : 0]]),
    family('sexton_drain_after_forward_total', 'counter',
      'What reached the app after the stop signal was forwarded, by kind: connections, requests (a lower bound), ' +
        'resets sent.',
      (['connections', 'requests', 'resets'] as const).map((kind) => [{ kind }, d.afterForward[kind]])),
  ];
}

export function renderMetrics(s: StatsSnapshot, p: ProcessMetrics = readProcessMetrics()): string {
  const phases = ['starting', 'running', 'draining', 'stopping', 'killing'];
  return `${[
    family('sexton_build_info', 'gauge', "sexton's version; always 1.", [[{ version: s.version }, 1]]),
    family('sexton_uptime_seconds', 'gauge', 'Seconds since sexton started.', [[{}, s.uptimeSeconds]]),
    family('sexton_main_child_running', 'gauge', '1 while the main child runs.',
      [[{}, s.mainChild.state === 'running' ? 1 : 0]]),
    family('sexton_shutdown_phase', 'gauge', 'The lifecycle phase sexton is in (1 for the current one).',
      phases.map((phase) => [{ phase }, s.phase === phase ? 1 : 0])),
    family('sexton_reaped_total', 'counter', 'Processes reaped, by kind: the main child or orphans.',
      [[{ kind: 'main' }, s.reaped - s.orphansReaped], [{ kind: 'orphan' }, s.orphansReaped]]),
    family('sexton_named_orphans_reaped_total', 'counter',
      `Orphans reaped whose command name (comm) was read just before the reap, by name. The ` +
        `first ${COMMAND_LABEL_CAP} names get a series each; later ones count under command="(other)".`,
      Object.entries(s.orphansByCommand).map(([command, n]) => [{ command }, n])),
    family('sexton_unnamed_orphans_reaped_total', 'counter',
      'Orphans reaped without a name: a storm outran naming, or /proc was not this PID namespace\'s.', [
        [{}, s.orphansUnnamed]]),
    family('sexton_zombies', 'gauge', 'Zombies held by live parents that never wait; no init can reap them.',
      [[{}, s.zombieCount]]),
    family('sexton_zombie_parents', 'gauge', 'Live processes holding zombies.', [[{}, s.zombies.length]]),
    family('sexton_unkillable_processes', 'gauge',
      'Processes still alive a moment after the SIGKILL that ended the grace period (state D, frozen); 0 before.',
      [[{}, s.unkillableCount]]),
    family('sexton_signals_received_total', 'counter', 'Signals sexton received, by name.',
      bySignal(s.signals.received)),
    family('sexton_signals_forwarded_total', 'counter', 'Signals delivered to the child, by name after rewrites.',
      bySignal(s.signals.forwarded)),
    family('sexton_signals_dropped_total', 'counter', 'Signals dropped by a rewrite to none, by name.',
      bySignal(s.signals.dropped)),
    ...(s.budget.pids ? [family('sexton_pids_current', 'gauge',
      "Tasks in the container's pids cgroup (pids.current): threads and zombies count.", [
        [{}, s.budget.pids.current]])] : []),
    ...(s.budget.pids?.max != null ? [family('sexton_pids_max', 'gauge',
      "The container's pids limit (pids.max); absent when unlimited.", [[{}, s.budget.pids.max]])] : []),
    family('sexton_outside_processes', 'gauge',
      "Live processes that are not the main child's (exec sessions, probe leftovers).", [
        [{}, s.budget.outsiders.count]]),
    ...drainFamilies(s.drain),
    family('sexton_ready', 'gauge',
      'What GET /readyz answered when this snapshot was taken (up to a second ago): 1 ready, 0 not.', [
        [{}, s.health.ready ? 1 : 0]]),
    family('sexton_notify_datagrams_total', 'counter',
      'sd_notify datagrams from the app (--ready-when notify), by fate: accepted, or ignored as malformed, oversized ' +
        'or foreign.',
      (['accepted', 'malformed', 'oversized', 'foreign'] as const).map(
        (fate) => [{ fate }, s.health.notifications[fate]])),
    ...processFamilies(p),
  ].join('\n')}\n`;
}

const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** The metrics routes (/metrics, and / for a quick look), for a bounded HTTP server (http-server.ts). */
export function metricsRoutes(text: () => string): Routes {
  const metrics = () => ({ status: 200, headers: { 'Content-Type': CONTENT_TYPE }, body: text() });
  return { '/metrics': metrics, '/': metrics };
}
