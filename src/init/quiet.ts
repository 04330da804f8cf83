// When is a draining pod quiet? Pure policy over samples of its network namespace: what reached
// the app between two samples, when traffic last came, and what came after the stop signal was
// forwarded. The samples are taken in drain.ts; no clock, no kernel here. The operator's lines
// about a drain are report/stats.ts's.
import type { TcpCounters } from '../platform/netns';
import { TCP_LISTEN, TcpSocket } from '../platform/tcp-sockets';
import type { DrainArrivals as Arrivals, DrainEndReason, DrainSnapshot as DrainReport } from '../report/stats';

export type { Arrivals, DrainEndReason, DrainReport };
export { describeDrain, describeLateArrivals } from '../report/stats';

export interface TrafficSample {
  /** Milliseconds, on any one clock. */
  at: number;
  /** undefined: /proc/net/snmp could not be read. */
  counters?: TcpCounters;
  /** undefined: the socket dump failed. */
  sockets?: TcpSocket[];
  /** Connections sexton's own listeners accepted so far (own-listeners.ts). */
  ownAccepted: number;
}

export const NO_ARRIVALS: Arrivals = { connections: 0, requests: 0, resets: 0 };

export const anyArrivals = (a: Arrivals): boolean => a.connections > 0 || a.requests > 0;

/**
 * What reached the app between two samples, or undefined when either could not be read.
 * appPorts: the ports the app listens (or listened) on, the inbound side of its connections;
 * ownPorts: sexton's own listeners, whose connections are not the app's traffic.
 */
export function arrivalsBetween(before: TrafficSample, after: TrafficSample, appPorts: ReadonlySet<number>,
  ownPorts: ReadonlySet<number>): Arrivals | undefined {
  if (!before.counters || !after.counters || !before.sockets || !after.sockets) return undefined;
  // Own connections still in a listener's accept queue are counted by the kernel, not yet by sexton.
  const ownWaiting = (sockets: TcpSocket[]) => sockets.filter((s) => s.state === TCP_LISTEN
    && ownPorts.has(s.localPort)).reduce((n, s) => n + s.queued, 0);
  const own = (after.ownAccepted + ownWaiting(after.sockets)) - (before.ownAccepted + ownWaiting(before.sockets));
  const connections = Math.max(0, after.counters.passiveOpens - before.counters.passiveOpens - own);
  const received = new Map(before.sockets.map((s) => [s.cookie, s.bytesReceived]));
  let requests = 0;
  for (const s of after.sockets) {
    if (s.state === TCP_LISTEN || !appPorts.has(s.localPort) || ownPorts.has(s.localPort)) continue;
    if (s.bytesReceived > (received.get(s.cookie) ?? 0)) requests++;
  }
  return { connections, requests, resets: Math.max(0, after.counters.outRsts - before.counters.outRsts) };
}

/** Ports the app listens on in this sample, sexton's own left out. */
export function listeningPorts(sample: TrafficSample, ownPorts: ReadonlySet<number>): number[] {
  return (sample.sockets ?? []).filter((s) => s.state === TCP_LISTEN && !ownPorts.has(s.localPort)).map(
    (s) => s.localPort);
}

/** The quiet window's clock for one drain, started at the stop signal. */
export class QuietWindow {
  private lastTrafficAt?: number;
  private forwardedAt?: number;
  private endedBy?: DrainEndReason;
  private unread = 0;
  private late: Arrivals = { ...NO_ARRIVALS };

  constructor(
    private readonly quietMs: number,
    private readonly capMs: number,
    private readonly stoppedAt: number,
    private readonly watch: DrainReport['watch'],
  ) {}

  /** Takes what arrived up to `at` (undefined: unreadable); true once the window is quiet. */
  observe(arrivals: Arrivals | undefined, at: number): boolean {
    if (this.forwardedAt !== undefined) {
      if (arrivals) this.late = { connections: this.late.connections + arrivals.connections,
        requests: this.late.requests + arrivals.requests, resets: this.late.resets + arrivals.resets };
      return false;
    }
    if (!arrivals) this.unread++;
    // A sample that cannot be read may hide traffic: it counts as traffic.
    if (!arrivals || anyArrivals(arrivals)) this.lastTrafficAt = at;
    return this.watch === 'traffic' && at - (this.lastTrafficAt ?? this.stoppedAt) >= this.quietMs;
  }

  forwarded(by: DrainEndReason, at: number): void {
    if (this.forwardedAt !== undefined) return;
    this.forwardedAt = at;
    this.endedBy = by;
  }

  get isForwarded(): boolean {
    return this.forwardedAt !== undefined;
  }

  report(): DrainReport {
    const seconds = (at: number | undefined) => (at === undefined ? null : Math.round(at - this.stoppedAt) / 1000);
    return {
      quietSeconds: this.quietMs / 1000,
      capSeconds: this.capMs / 1000,
      watch: this.watch,
      waitedSeconds: seconds(this.forwardedAt),
      lastTrafficSeconds: seconds(this.lastTrafficAt),
      endedBy: this.endedBy ?? null,
      unreadSamples: this.unread,
      afterForward: { ...this.late },
    };
  }
}
