// The metrics text, rendered from a snapshot, checked by promtool (Debian's prometheus package,
// installed by .ci/setup): no sexton process needed.
import { expect, test } from 'vitest';
import { renderMetrics } from '../../../../src/report/exporters/prometheus';
import { readProcessMetrics } from '../../../../src/report/exporters/process-metrics';
import type { StatsSnapshot } from '../../../../src/report/stats';
import { checkMetrics, sample } from '../../../support/observability';

const fresh: StatsSnapshot = {
  version: '1.2.3', pid: 1, role: 'init', uptimeSeconds: 0.5, phase: 'running',
  mainChild: { pid: 7, command: 'node server.js', state: 'running' },
  reaped: 0, orphansReaped: 0, orphansByCommand: {}, orphansUnnamed: 0,
  signals: { received: {}, forwarded: {}, dropped: {} }, zombies: [], zombieCount: 0,
  procfs: 'own', tasks: 7, oomKills: 0, logLinesDropped: 0, survivorsKilled: 0, unkillable: [], unkillableCount: 0, drain: null,
  budget: { pids: { current: 12, max: 100, version: 1 }, outsiders: { count: 0, shown: [] } },
  health: { readyWhen: 'started', ready: true, reason: 'ready', notifications: { accepted: 0, malformed: 0, oversized: 0, foreign: 0, descriptors: 0 } },
};

test('a fresh sexton: lint-clean, build info, and every labelled counter present at 0', async () => {
  const text = renderMetrics(fresh);
  expect(await checkMetrics(text)).toEqual({ exitCode: 0, output: '' });
  expect(sample(text, 'sexton_build_info{version="1.2.3"}')).toBe(1);
  expect(text).not.toMatch(/^sexton_up\b/m);
  for (const kind of ['received', 'forwarded', 'dropped']) {
    for (const signal of ['HUP', 'INT', 'QUIT', 'USR1', 'USR2', 'TERM', 'WINCH']) {
      expect(sample(text, `sexton_signals_${kind}_total{signal="${signal}"}`)).toBe(0);
    }
  }
  expect(sample(text, 'sexton_reaped_total{kind="orphan"}')).toBe(0);
  expect(sample(text, 'sexton_unnamed_orphans_reaped_total')).toBe(0);
  expect(sample(text, 'sexton_unkillable_processes')).toBe(0);
  expect(sample(text, 'sexton_pids_current')).toBe(12);
  expect(sample(text, 'sexton_pids_max')).toBe(100);
  expect(renderMetrics({ ...fresh, budget: { ...fresh.budget, pids: { current: 9, max: null, version: 1 } } })).not.toMatch(/^sexton_pids_max/m);
});

test('a busy sexton: counts by command and signal, odd names escaped, still lint-clean', async () => {
  const text = renderMetrics({
    ...fresh,
    reaped: 31, orphansReaped: 30, orphansByCommand: { sh: 20, 'we"ir\\d': 1, '(other)': 2 }, orphansUnnamed: 7,
    signals: { received: { TERM: 1, RTMIN: 2 }, forwarded: { TERM: 1 }, dropped: { RTMIN: 2 } },
  });
  expect(await checkMetrics(text)).toEqual({ exitCode: 0, output: '' });
  expect(sample(text, 'sexton_named_orphans_reaped_total{command="sh"}')).toBe(20);
  expect(sample(text, 'sexton_named_orphans_reaped_total{command="we\\"ir\\\\d"}')).toBe(1);
  expect(sample(text, 'sexton_unnamed_orphans_reaped_total')).toBe(7);
  expect(sample(text, 'sexton_signals_dropped_total{signal="RTMIN"}')).toBe(2);
  expect(sample(text, 'sexton_signals_dropped_total{signal="TERM"}')).toBe(0);
});

test("process_* are this process's own, from /proc/self", () => {
  const p = readProcessMetrics();
  const text = renderMetrics(fresh, p);
  const started = sample(text, 'process_start_time_seconds') as number;
  // Node's own clock of its life, within the 10 ms tick of /proc and a margin.
  expect(Math.abs(started - (Date.now() / 1000 - process.uptime()))).toBeLessThan(1);
  expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(10 * 1024 * 1024);
  expect(sample(text, 'process_cpu_seconds_total')).toBeGreaterThan(0);
  expect(sample(text, 'process_open_fds')).toBeGreaterThan(2);
  expect(sample(text, 'process_max_fds')).toBeGreaterThan(sample(text, 'process_open_fds') as number);
});
