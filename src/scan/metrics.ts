// `sexton scan --serve`: the node's zombies and stuck processes as Prometheus metrics, for a DaemonSet. A scrape
// scans /proc (at most once a second; scrapes in between get the same answer). Labels come
// only from ids, enums and the kubelet's names, each bounded, and the number of series is
// capped: command lines never appear (they can hold secrets, and this sees every pod's).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { family } from '../report/exporters/prometheus';
import { MAX_LABEL, MAX_SERIES } from './metrics-limits';
import { attributor, listAll, scan, ScanOptions, ScanResult } from './scan';
import { lookForStuck, StuckTracker } from './stuck';
import { renderStuckMetrics, StuckSample } from './stuck-metrics';

export const CACHE_MS = 1000;
/** Series per metric; groups beyond it are summed into sexton_scan_zombies_unlabelled. */
export { MAX_SERIES };

const LABELS = ['namespace', 'pod', 'container', 'pod_uid', 'container_id', 'runtime', 'reason'] as const;
type Labels = Record<(typeof LABELS)[number], string>;

interface Series {
  labels: Labels;
  zombies: number;
  parents: number;
  oldest: number;
}

const bounded = (value: string | null) => (value ?? '').slice(0, MAX_LABEL);

function seriesOf(r: ScanResult): { kept: Series[]; droppedZombies: number } {
  const byKey = new Map<string, Series>();
  for (const g of r.groups) {
    const labels: Labels = {
      namespace: bounded(g.namespace), pod: bounded(g.pod), container: bounded(g.container), pod_uid: bounded(g.podUid),
      container_id: bounded(g.containerId), runtime: bounded(g.runtime), reason: g.reason,
    };
    const key = LABELS.map((l) => labels[l]).join('\0');
    const s = byKey.get(key) ?? { labels, zombies: 0, parents: 0, oldest: 0 };
    s.zombies += g.zombies;
    s.parents += 1;
    s.oldest = Math.max(s.oldest, g.oldestAgeSeconds);
    byKey.set(key, s);
  }
  const all = [...byKey.values()].sort((a, b) => b.zombies - a.zombies);
  const kept = all.slice(0, MAX_SERIES);
  return { kept, droppedZombies: all.slice(MAX_SERIES).reduce((n, s) => n + s.zombies, 0) };
}

export function renderScanMetrics(r: ScanResult, scans: number, stuck = ''): string {
  const { kept, droppedZombies } = seriesOf(r);
  return `${[
    family('sexton_scan_zombies', 'gauge',
      'Zombies on the node, by the container and pod of the live parent holding them.',
      kept.map((s) => [s.labels, s.zombies])),
    family('sexton_scan_zombie_parents', 'gauge', 'Live processes holding zombies, by container and pod.',
      kept.map((s) => [s.labels, s.parents])),
    family('sexton_scan_zombie_oldest_age_seconds', 'gauge', 'Age of the oldest zombie, by container and pod.',
      kept.map((s) => [s.labels, s.oldest])),
    family('sexton_scan_zombies_unlabelled', 'gauge', `Zombies of the series beyond the first ${MAX_SERIES}.`,
      [[{}, droppedZombies]]),
    ...(stuck ? [stuck] : []),
    family('sexton_scan_processes', 'gauge', 'Processes the last scan read.', [[{}, r.scannedProcesses]]),
    family('sexton_scan_unreadable_processes', 'gauge', 'Process entries the last scan could not read.',
      [[{}, r.unreadableProcesses]]),
    family('sexton_scan_duration_seconds', 'gauge', 'How long the last scan took.',
      [[{}, Number((r.durationMs / 1000).toFixed(4))]]),
    family('sexton_scan_scans_total', 'counter', 'Scans of /proc since start.', [[{}, scans]]),
  ].join('\n')}\n`;
}

export type Logger = (line: string) => void;

/** The handler: one scan a second at most, whatever the scrape rate. */
export function metricsHandler(options: ScanOptions, log: Logger) {
  let cached: { at: number; text: string } | undefined;
  let scans = 0;
  let toldNoPodsDir = false;
  // Stuck means stuck at every scan for --min-age: the tracker remembers since when.
  const tracker = new StuckTracker();
  return (request: IncomingMessage, response: ServerResponse) => {
    response.on('error', () => undefined);
    if (request.url !== '/metrics' && request.url !== '/') {
      response.writeHead(404).end('sexton scan serves /metrics\n');
      return;
    }
    try {
      if (!cached || Date.now() - cached.at >= CACHE_MS) {
        scans++;
        const listing = listAll(options);
        const result = scan(options, listing);
        const found: StuckSample[] = lookForStuck(tracker, options, listing).found;
        const stuck = renderStuckMetrics(found, attributor(options).attribute, options.procRoot);
        if (result.podsDirFound === false && !toldNoPodsDir) {
          toldNoPodsDir = true;
          log(`no kubelet pod directory at ${options.podsDir}: pods are labelled by id only`);
        }
        cached = { at: Date.now(), text: renderScanMetrics(result, scans, stuck) };
      }
      response.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8' }).end(cached.text);
    } catch (error) {
      response.writeHead(500).end('scan failed\n');
      log(`scan failed: ${(error as Error).message}`);
    }
  };
}

/** Serves until SIGTERM or SIGINT (exit 0); resolves 2 when it cannot listen. */
export function serve(address: { host: string; port: number }, options: ScanOptions, log: Logger): Promise<number> {
  const http = require('node:http') as typeof import('node:http');
  return new Promise((resolve) => {
    const server = http.createServer(metricsHandler(options, log));
    server.on('error', (error) => {
      log(`cannot serve on ${address.host}:${address.port}: ${error.message}`);
      resolve(2);
    });
    server.listen(address.port, address.host, () => {
      const bound = server.address() as { port: number };
      log(`metrics on http://${address.host.includes(':') ? `[${address.host}]` : address.host}:${bound.port}/metrics`);
    });
    // Often PID 1 of its pod: without handlers the kernel would drop these.
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => resolve(0));
  });
}
