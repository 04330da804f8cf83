// What `sexton scan` prints: a table for the operator, or JSON for tools.
import type { Placement, ScanResult, ZombieGroupReport } from './scan';
import type { StuckResult } from './stuck';

/** Printable and short: control and non-ASCII characters escaped, the rest cut at `max`. */
export function printable(text: string, max = 80): string {
  const escaped = text.replace(/[^\x20-\x7e]/gu, (c) => {
    const code = c.codePointAt(0) as number;
    return code > 0xff ? `\\u{${code.toString(16)}}` : `\\x${code.toString(16).padStart(2, '0')}`;
  });
  return escaped.length > max ? `${escaped.slice(0, max - 1)}…` : escaped;
}

/** Where the parent lives: namespace/pod/container, else the runtime and short ids, else the host. */
export function whereOf(g: Omit<Placement, 'cgroup'>): string {
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
    rows.push([String(g.parent.pid), String(g.zombies), age(g.oldestAgeSeconds), printable(whereOf(g), 100), g.reason,
      printable(g.parent.command, 60)]);
  }
  const reasons = [...new Set(r.groups.map((g) => g.reason))].map((reason) => `${reason}: ${ADVICE[reason]}`);
  const parents = r.groups.length === 1 ? '1 parent' : `${r.groups.length} parents`;
  return `${[...pad(rows), '', ...reasons, `${zombies} zombies${older} held by ${parents}; ${scanned}`].join('\n')}\n`;
}

export function formatJson(r: ScanResult | StuckResult): string {
  return `${JSON.stringify(r)}\n`;
}

/** Stuck processes, grouped by where they live (pod and container), one row each. */
export function formatStuckTable(r: StuckResult): string {
  const scanned = `scanned ${r.scannedProcesses} processes in ${r.durationMs} ms` +
    (r.unreadableProcesses > 0 ? ` (${r.unreadableProcesses} unreadable, skipped)` : '');
  const held = r.minAgeSeconds > 0 ? ` for ${r.minAgeSeconds} s` : '';
  if (r.stuck.length === 0) return `no process stuck${held} (state D or SIGKILL pending); ${scanned}\n`;
  const rows = [['WHERE', 'PID', 'STATE', 'KILL', 'WCHAN', 'SYSCALL', 'MOUNT', 'COMMAND']];
  const where = (s: StuckResult['stuck'][number]) => printable(whereOf(s), 100);
  const sorted = [...r.stuck].sort((a, b) => where(a).localeCompare(where(b)) || a.pid - b.pid);
  for (const s of sorted) {
    const mount = s.mount ? `${s.mount.fstype} ${s.mount.mountPoint} (${s.mount.via})` : '-';
    rows.push([where(s), String(s.pid), s.state, s.killPending ? 'pending' : '-', printable(s.wchan ?? '-', 40),
      printable(s.syscall ?? '-', 24), printable(mount, 80), printable(s.command, 60)]);
  }
  const places = new Set(sorted.map(where)).size;
  const more = r.notDescribed > 0 ? ` (${r.notDescribed} more not described)` : '';
  const total = r.stuck.length + r.notDescribed;
  const summary = `${total} process(es) stuck${held}${more} in ${places} place(s): SIGKILL cannot end them until `
    + `what they wait on answers (or their cgroup is thawed); ${scanned}`;
  return `${[...pad(rows), '', summary].join('\n')}\n`;
}
