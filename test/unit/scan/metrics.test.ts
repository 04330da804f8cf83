// The exporter's text: labels from ids, enums and kubelet names only, bounded in length and in
// number; never a command line. (Served for real, scraped and checked with promtool in
// test/scan/scan.test.ts.)
import { expect, test } from 'vitest';
import { MAX_SERIES, renderScanMetrics } from '../../../src/scan/metrics';
import type { ScanResult, ZombieGroupReport } from '../../../src/scan/scan';

const UID = '2f3a4b5c-6d7e-4f80-9a1b-2c3d4e5f6a7b';

function group(pid: number, over: Partial<ZombieGroupReport> = {}): ZombieGroupReport {
  return {
    parent: { pid, command: `worker --password=hunter2-${pid}` }, zombies: 1, oldestAgeSeconds: 3,
    containerId: pid.toString(16).padStart(64, '0'), runtime: 'containerd', podUid: UID,
    namespace: 'shop', pod: 'checkout', container: 'app', reason: 'parent-does-not-wait', cgroup: '/kubepods/x', ...over,
  };
}

const result = (groups: ZombieGroupReport[]): ScanResult => ({ groups, scannedProcesses: 321, unreadableProcesses: 2, podsDirFound: true, durationMs: 12.5 });

test('zombies by container and pod; parents of one container are summed, never a pid or a command', () => {
  const id = 'f'.repeat(64);
  const text = renderScanMetrics(result([
    group(100, { containerId: id, zombies: 3, oldestAgeSeconds: 7 }),
    group(101, { containerId: id, zombies: 2, oldestAgeSeconds: 9 }),
    group(200, { containerId: null, runtime: null, podUid: null, namespace: null, pod: null, container: null, reason: 'pid1-does-not-reap' }),
  ]), 4);
  const labels = `namespace="shop",pod="checkout",container="app",pod_uid="${UID}",container_id="${id}",runtime="containerd",reason="parent-does-not-wait"`;
  expect(text).toContain(`sexton_scan_zombies{${labels}} 5\n`);
  expect(text).toContain(`sexton_scan_zombie_parents{${labels}} 2\n`);
  expect(text).toContain(`sexton_scan_zombie_oldest_age_seconds{${labels}} 9\n`);
  expect(text).toContain('sexton_scan_zombies{namespace="",pod="",container="",pod_uid="",container_id="",runtime="",reason="pid1-does-not-reap"} 1\n');
  expect(text).toContain('sexton_scan_processes 321\n');
  expect(text).toContain('sexton_scan_unreadable_processes 2\n');
  expect(text).toContain('sexton_scan_duration_seconds 0.0125\n');
  expect(text).toContain('sexton_scan_scans_total 4\n');
  expect(text).not.toMatch(/hunter2|worker|password|\b10[01]\b/);
});

test(`at most ${MAX_SERIES} series; the rest is counted without labels`, () => {
  const groups = Array.from({ length: MAX_SERIES + 100 }, (_, i) => group(1000 + i, { zombies: i < MAX_SERIES ? 2 : 1 }));
  const text = renderScanMetrics(result(groups), 1);
  expect(text.split('\n').filter((l) => l.startsWith('sexton_scan_zombies{'))).toHaveLength(MAX_SERIES);
  expect(text).toContain('sexton_scan_zombies_unlabelled 100\n');
});

test('label values are bounded and escaped', () => {
  const text = renderScanMetrics(result([group(1, { pod: `p${'x'.repeat(1000)}`, container: 'a"b\\c\nd' })]), 1);
  expect(/pod="(px*)"/.exec(text)?.[1].length).toBe(253);
  expect(text).toContain('container="a\\"b\\\\c\\nd"');
});
