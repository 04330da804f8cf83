// What `sexton scan` prints: a table for the operator, or JSON for tools.
import type { ScanResult, ZombieGroupReport } from './scan';

/** Printable and short: control and non-ASCII characters escaped, the rest cut at `max`. */
export function printable(text: string, max = 80): string {
  const escaped = text.replace(/[^\x20-\x7e]/gu, (c) => {
    const code = c.codePointAt(0) as number;
    return code > 0xff ? `\\u{${code.toString(16)}}` : `\\x${code.toString(16).padStart(2, '0')}`;
  });
  return escaped.length > max ? `${escaped.slice(0, max - 1)}…` : escaped;
}

/** Where the parent lives: namespace/pod/container, else the runtime and short ids, else the host. */
export function whereOf(g: ZombieGroupReport): string {
  if (g.namespace && g.pod) return `${g.namespace}/${g.pod}/${g.container ?? g.containerId?.slice(0, 12) ?? '?'}`;
  const parts: string[] = [];
  if (g.podUid) parts.push(`pod ${g.podUid.slice(0, g.runtime === 'podman' ? 12 : 36)}`);
  if (g.containerId) parts.push(`${g.runtime ?? 'container'} ${g.containerId.slice(0, 12)}`);
  return parts.length > 0 ? parts.join(' ') : 'no container';
}

function age(seconds: number): string {
  if (seconds < 120) return `${Math.floor(seconds)}s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 172800) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86400)}d`;
}

const ADVICE: Record<ZombieGroupReport['reason'], string> = {
  'pid1-does-not-reap': 'the PID 1 of its namespace never reaps orphans: run the container with an init (sexton --)',
  'parent-does-not-wait': 'a live app process forks and never waits: fix the app (no init can reap these)',
};

function pad(cells: string[][]): string[] {
  const widths = cells[0].map((_, i) => Math.max(...cells.map((row) => row[i].length)));
  return cells.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]))).join('  '));
}

export function formatTable(r: ScanResult, minAgeSeconds: number): string {
  const zombies = r.groups.reduce((n, g) => n + g.zombies, 0);
  const scanned = `scanned ${r.scannedProcesses} processes in ${r.durationMs} ms` +
    (r.unreadableProcesses > 0 ? ` (${r.unreadableProcesses} unreadable, skipped)` : '');
  const older = minAgeSeconds > 0 ? ` at least ${minAgeSeconds} s old` : '';
  if (r.groups.length === 0) return `no zombies${older}; ${scanned}\n`;
  const rows = [['PARENT', 'ZOMBIES', 'OLDEST', 'WHERE', 'REASON', 'COMMAND']];
  for (const g of r.groups) {
    rows.push([String(g.parent.pid), String(g.zombies), age(g.oldestAgeSeconds), printable(whereOf(g), 100), g.reason, printable(g.parent.command, 60)]);
  }
  const reasons = [...new Set(r.groups.map((g) => g.reason))].map((reason) => `${reason}: ${ADVICE[reason]}`);
  const parents = r.groups.length === 1 ? '1 parent' : `${r.groups.length} parents`;
  return `${[...pad(rows), '', ...reasons, `${zombies} zombies${older} held by ${parents}; ${scanned}`].join('\n')}\n`;
}

export function formatJson(r: ScanResult): string {
  return `${JSON.stringify(r)}\n`;
}
