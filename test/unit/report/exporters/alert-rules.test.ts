// The example alert rules name only series sexton really exports: each metric in an expression
// is in the text the init's exporter or the scanner renders (promtool's own unit tests of the
// rules run in .ci/run).
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { expect, test } from 'vitest';
import { renderMetrics } from '../../../../src/report/exporters/prometheus';
import { renderScanMetrics } from '../../../../src/scan/metrics';
import { renderStuckMetrics } from '../../../../src/scan/stuck-metrics';
import type { StatsSnapshot } from '../../../../src/report/stats';

const rules = readFileSync(path.join(__dirname, '..', '..', '..', '..', 'examples', 'prometheus', 'sexton-alerts.yaml'), 'utf8');

test('every sexton_ series in the alert rules is exported', () => {
  const snapshot = {
    version: '1', pid: 1, role: 'init', uptimeSeconds: 1, phase: 'running', mainChild: { pid: 7, command: 'x', state: 'running' },
    reaped: 0, orphansReaped: 0, orphansByCommand: {}, orphansUnnamed: 0, signals: { received: {}, forwarded: {}, dropped: {} },
    zombies: [], zombieCount: 0, procfs: 'own', tasks: 7, oomKills: 0, logLinesDropped: 0, survivorsKilled: 0,
    unkillable: [], unkillableCount: 0, drain: null,
    budget: { pids: { current: 3, max: 100, version: 1 }, outsiders: { count: 0, shown: [] } },
    health: { readyWhen: 'started', ready: true, reason: 'ready', notifications: { accepted: 0, malformed: 0, oversized: 0, foreign: 0, descriptors: 0 } },
  } satisfies StatsSnapshot;
  const stuck = renderStuckMetrics([], () => { throw new Error('nothing to place'); }, '/proc');
  const exported = renderMetrics(snapshot) + renderScanMetrics({ groups: [], scannedProcesses: 1, unreadableProcesses: 0, podsDirFound: null, durationMs: 1 }, 1, stuck);
  const used = [...new Set(rules.match(/\bsexton_[a-z_]+/g))];
  expect(used.length).toBeGreaterThanOrEqual(5);
  for (const name of used) expect(exported, name).toMatch(new RegExp(`^# TYPE ${name} `, 'm'));
});
