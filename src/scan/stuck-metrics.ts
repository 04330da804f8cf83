// The stuck processes as Prometheus series for `sexton scan --serve`: counted by container, pod,
// state, wait channel and pending kill. Only ids, kubelet names, one-letter states and kernel
// function names make labels (a wait channel that is not a plain symbol becomes "other"): never
// a command line, a pid or a path.
import { family } from '../report/exporters/prometheus';
import type { ProcessInfo } from '../platform/procfs';
import type { Placement } from './scan';
import { readText } from '../platform/read-text';
import { MAX_STUCK_REPORTED } from './stuck';
import { MAX_LABEL, MAX_SERIES } from './metrics-limits';

const LABELS = ['namespace', 'pod', 'container', 'pod_uid', 'container_id', 'runtime', 'state', 'wchan',
  'kill_pending'] as const;
type Labels = Record<(typeof LABELS)[number], string>;

export interface StuckSample {
  process: ProcessInfo;
  seenForMs: number;
}

const bounded = (value: string | null) => (value ?? '').slice(0, MAX_LABEL);
const SYMBOL = /^[A-Za-z_][A-Za-z0-9_.]{0,63}$/;

function wchanOf(pid: number, procRoot: string): string {
  const text = readText(`${procRoot}/${pid}/wchan`)?.trim() ?? '';
  if (text === '' || text === '0') return '';
  return SYMBOL.test(text) ? text : 'other';
}

export function renderStuckMetrics(found: StuckSample[], place: (pid: number) => Placement, procRoot: string): string {
  const byKey = new Map<string, { labels: Labels; count: number; seenForMs: number }>();
  const placed = [...found].sort((a, b) => b.seenForMs - a.seenForMs).slice(0, MAX_STUCK_REPORTED);
  for (const { process: p, seenForMs } of placed) {
    const w = place(p.pid);
    const labels: Labels = {
      namespace: bounded(w.namespace), pod: bounded(w.pod), container: bounded(w.container), pod_uid: bounded(w.podUid),
      container_id: bounded(w.containerId), runtime: bounded(w.runtime), state: p.state.slice(0, 1), wchan: wchanOf(
        p.pid, procRoot),
      kill_pending: p.killPending ? 'true' : 'false',
    };
    const key = LABELS.map((l) => labels[l]).join('\0');
    const s = byKey.get(key) ?? { labels, count: 0, seenForMs: 0 };
    s.count++;
    s.seenForMs = Math.max(s.seenForMs, seenForMs);
    byKey.set(key, s);
  }
  const all = [...byKey.values()].sort((a, b) => b.count - a.count);
  const kept = all.slice(0, MAX_SERIES);
  const unlabelled = found.length - kept.reduce((n, s) => n + s.count, 0);
  return [
    family('sexton_scan_stuck_processes', 'gauge',
      'Processes in state D or with SIGKILL pending at every look for at least --min-age, by container, pod, state, ' +
        'wait channel and pending kill.',
      kept.map((s) => [s.labels, s.count])),
    family('sexton_scan_stuck_seen_seconds', 'gauge',
      'How long the longest stuck process of the series has been seen stuck.',
      kept.map((s) => [s.labels, Math.round(s.seenForMs / 10) / 100])),
    family('sexton_scan_stuck_unlabelled', 'gauge',
      `Stuck processes beyond the first ${MAX_STUCK_REPORTED} or the first ${MAX_SERIES} series.`, [[{}, unlabelled]]),
  ].join('\n');
}
