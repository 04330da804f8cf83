// The standard process_* series, as Prometheus client libraries define them, read from
// /proc/self with synchronous calls: no client library, no libuv pool work in PID 1.
import { readdirSync, readFileSync } from 'node:fs';
import { parseStat, TICKS_PER_SECOND } from '../../platform/procfs';

export interface ProcessMetrics {
  startTimeSeconds: number;
  cpuSeconds: number;
  residentBytes: number;
  /** RssAnon: sexton's own memory; the rest of the RSS is mostly the node binary's file pages. */
  residentAnonymousBytes: number;
  virtualBytes: number;
  openFds: number;
  maxFds: number;
}

function bootTimeSeconds(): number {
  const line = readFileSync('/proc/stat', 'latin1').split('\n').find((l) => l.startsWith('btime '));
  return Number(line?.slice(6));
}

export function readProcessMetrics(): ProcessMetrics {
  const stat = parseStat(readFileSync('/proc/self/stat', 'latin1'));
  const field = (n: number) => Number(stat?.field(n) ?? NaN);
  const status = readFileSync('/proc/self/status', 'latin1');
  const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  const limits = readFileSync('/proc/self/limits', 'latin1');
  const maxFds = /^Max open files\s+(\d+|unlimited)/m.exec(limits)?.[1];
  return {
    startTimeSeconds: bootTimeSeconds() + field(22) / TICKS_PER_SECOND,
    cpuSeconds: (field(14) + field(15)) / TICKS_PER_SECOND,
    residentBytes: kib('VmRSS'),
    residentAnonymousBytes: kib('RssAnon'),
    virtualBytes: field(23),
    // The directory's own fd, opened to list it, is not counted.
    openFds: readdirSync('/proc/self/fd').length - 1,
    maxFds: maxFds === undefined || maxFds === 'unlimited' ? NaN : Number(maxFds),
  };
}
