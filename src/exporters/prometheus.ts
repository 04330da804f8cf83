// Prometheus text exposition of the stats snapshot, served over HTTP only when --metrics is set.
import type { Logger } from '../log';
import type { StatsSnapshot } from '../stats';

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

const bySignal = (counts: Record<string, number>): Sample[] => Object.entries(counts).map(([signal, n]) => [{ signal }, n]);

export function renderMetrics(s: StatsSnapshot): string {
  const phases = ['starting', 'running', 'draining', 'stopping', 'killing'];
  return `${[
    family('sexton_up', 'gauge', 'Always 1 while sexton answers.', [[{ version: s.version, role: s.role }, 1]]),
    family('sexton_uptime_seconds', 'gauge', 'Seconds since sexton started.', [[{}, s.uptimeSeconds]]),
    family('sexton_main_child_running', 'gauge', '1 while the main child runs.', [[{}, s.mainChild.state === 'running' ? 1 : 0]]),
    family('sexton_shutdown_phase', 'gauge', 'The lifecycle phase sexton is in (1 for the current one).',
      phases.map((phase) => [{ phase }, s.phase === phase ? 1 : 0])),
    family('sexton_reaped_total', 'counter', 'Processes reaped, by kind: the main child or orphans.',
      [[{ kind: 'main' }, s.reaped - s.orphansReaped], [{ kind: 'orphan' }, s.orphansReaped]]),
    family('sexton_orphans_reaped_by_command_total', 'counter', 'Orphans reaped, by command name.',
      Object.entries(s.orphansByCommand).map(([command, n]) => [{ command }, n])),
    family('sexton_zombies', 'gauge', 'Zombies held by live parents that never wait; no init can reap them.', [[{}, s.zombieCount]]),
    family('sexton_zombie_parents', 'gauge', 'Live processes holding zombies.', [[{}, s.zombies.length]]),
    family('sexton_signals_received_total', 'counter', 'Signals sexton received, by name.', bySignal(s.signals.received)),
    family('sexton_signals_forwarded_total', 'counter', 'Signals delivered to the child, by name after rewrites.', bySignal(s.signals.forwarded)),
    family('sexton_signals_dropped_total', 'counter', 'Signals dropped by a rewrite to none, by name.', bySignal(s.signals.dropped)),
  ].join('\n')}\n`;
}

export function parseHostPort(text: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(text.trim());
  if (!m || Number(m[3]) > 65535) return undefined;
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port: Number(m[3]) };
}

export function startMetricsServer(address: { host: string; port: number }, snapshot: () => StatsSnapshot, log: Logger): void {
  const http = require('node:http') as typeof import('node:http');
  const server = http.createServer((request, response) => {
    response.on('error', () => undefined);
    if (request.url !== '/metrics' && request.url !== '/') {
      response.writeHead(404).end('sexton serves /metrics\n');
      return;
    }
    try {
      response.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8' }).end(renderMetrics(snapshot()));
    } catch (error) {
      response.writeHead(500).end();
      log.error(`metrics: ${(error as Error).message}`);
    }
  });
  server.on('error', (error) => log.error(`metrics: cannot serve on ${address.host}:${address.port}: ${error.message}`));
  server.listen(address.port, address.host, () => log.info(`metrics on http://${address.host}:${address.port}/metrics`));
  server.unref();
}
