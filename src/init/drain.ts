// The drain that waits for quiet (--drain-quiet): from the stop signal on, samples the network
// namespace's traffic and says when none has reached the app for the quiet window; the lifecycle
// decides what that ends (its DrainWindow: when the drain began, when and why it ended). It runs
// only during a stop: an idle sexton never samples. The policy over the samples is pure (no clock,
// no kernel): what reached the app between two samples, when traffic last came, and what came
// after the stop signal was forwarded (QuietWindow). The operator's lines are report/stats.ts's.
import type { Logger } from '../platform/log';
import type { Options } from '../config/options';
import type { Host } from '../platform/host';
import type { OwnListeners } from '../platform/own-listeners';
import type { Timers } from './loop';
import type { DrainWindow } from './lifecycle';
import { TCP_LISTEN, TcpSocket, tcpSockets } from '../platform/tcp-sockets';
import { hostNetworkSign, readTcpCounters, TcpCounters } from '../platform/netns';
import { errnoName } from '../platform/os-constants';
import { describeDrain, describeLateArrivals, DrainArrivals, DrainSnapshot } from '../report/stats';

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

/**
 * What reached the app between two samples, or undefined when either could not be read.
 * appPorts: the ports the app listens (or listened) on, the inbound side of its connections;
 * ownPorts: sexton's own listeners, whose connections are not the app's traffic.
 */
export function arrivalsBetween(before: TrafficSample, after: TrafficSample, appPorts: ReadonlySet<number>,
  ownPorts: ReadonlySet<number>): DrainArrivals | undefined {
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

/** The quiet window over one drain's samples, a reader of the lifecycle's window of that drain. */
export class QuietWindow {
  private lastTrafficAt?: number;
  private unread = 0;
  private late: DrainArrivals = { connections: 0, requests: 0, resets: 0 };

  constructor(
    private readonly quietMs: number,
    private readonly capMs: number,
    private readonly drain: Readonly<DrainWindow>,
    private readonly watch: DrainSnapshot['watch'],
  ) {}

  /** Takes what arrived up to `at` (undefined: unreadable), late once the drain is over; true once quiet. */
  observe(arrivals: DrainArrivals | undefined, at: number, late = this.drain.endedBy !== undefined): boolean {
    if (late) {
      if (arrivals) this.late = { connections: this.late.connections + arrivals.connections,
        requests: this.late.requests + arrivals.requests, resets: this.late.resets + arrivals.resets };
      return false;
    }
    if (!arrivals) this.unread++;
    // A sample that cannot be read may hide traffic: it counts as traffic.
    if (!arrivals || arrivals.connections > 0 || arrivals.requests > 0) this.lastTrafficAt = at;
    return this.watch === 'traffic' && at - (this.lastTrafficAt ?? this.drain.startedAt) >= this.quietMs;
  }

  report(): DrainSnapshot {
    const { startedAt, endedAt, endedBy } = this.drain;
    const seconds = (at: number | undefined) => (at === undefined ? null : Math.round(at - startedAt) / 1000);
    return {
      quietSeconds: this.quietMs / 1000,
      capSeconds: this.capMs / 1000,
      watch: this.watch,
      waitedSeconds: seconds(endedAt),
      lastTrafficSeconds: seconds(this.lastTrafficAt),
      endedBy: endedBy ?? null,
      unreadSamples: this.unread,
      afterForward: { ...this.late },
    };
  }
}

/** A namespace with more sockets than this is sampled in part: traffic on the rest is unseen. */
const SOCKET_LIMIT = 65_536;

/** Tries at a sample whose counters did not move while the sockets were read. */
const CONSISTENT_READS = 3;

/** Samples per quiet window, within these bounds: precise enough, and cheap (~0.1 ms each). */
export function sampleIntervalMs(quietSeconds: number): number {
  return Math.min(250, Math.max(50, (quietSeconds * 1000) / 5));
}

/** Samples on the loop's 'drain-sample' timer; tick() says when the window is quiet. */
export class TrafficDrain {
  private window?: QuietWindow;
  private last?: TrafficSample;
  /** Ports the app has listened on during the drain: it may close them at the forward. */
  private readonly appPorts = new Set<number>();
  /** Probes of /readyz and scrapes of /metrics are sexton's own traffic, not the app's. */
  private readonly own: Set<number>;
  private warnedUnread = false;

  /** Only with --drain-quiet. */
  constructor(
    private readonly options: Pick<Options, 'drainQuiet' | 'drainDelay' | 'metrics' | 'health'>,
    private readonly host: Pick<Host, 'native' | 'clock'>,
    private readonly log: Logger,
    private readonly timers: Timers,
    private readonly listeners: OwnListeners,
  ) {
    this.own = new Set([options.metrics?.port, options.health?.port].filter((port) => port !== undefined));
  }

  /** At the stop signal, for the lifecycle's window of this drain. */
  start(drain: Readonly<DrainWindow>): void {
    const { drainQuiet: quietSeconds, drainDelay: capSeconds } = this.options;
    const host = hostNetworkSign();
    this.window = new QuietWindow(quietSeconds * 1000, capSeconds * 1000, drain, host ? 'blind' : 'traffic');
    if (host) {
      this.log.warn(
        `drain: sexton runs in the host's network namespace (${host}): whether the app's traffic stopped cannot be ` +
          `told, so the drain lasts its ${capSeconds}s cap`);
      return;
    }
    this.last = this.sample();
    // Not kept alive: the reaper keeps sexton alive; this must not, once everything else is done.
    this.timers.start('drain-sample', sampleIntervalMs(quietSeconds), { repeat: true });
  }

  /** The lifecycle ended the drain: the operator's line; sampling goes on, counting late arrivals. */
  forwarded(): void {
    if (!this.window) return;
    this.tick(false);  // what came since the last sample belongs before the forward
    this.log.warn(describeDrain(this.window.report()));
  }

  /** At exit: the last count, and a line if the balancer kept sending after the forward. */
  finish(): void {
    if (!this.window) return;
    if (this.timers.cancel('drain-sample')) this.tick();  // the last sample, if sampling went on
    const late = describeLateArrivals(this.window.report());
    if (late) this.log.warn(late);
  }

  report(): DrainSnapshot | null {
    return this.window?.report() ?? null;
  }

  /** One sample (late: after the forward, as the lifecycle's window says); true once the window is quiet. */
  tick(late?: boolean): boolean {
    if (!this.window || !this.last) return false;
    const sample = this.sample();
    const arrivals = arrivalsBetween(this.last, sample, this.appPorts, this.own);
    this.last = sample;
    return this.window.observe(arrivals, sample.at, late);
  }

  private sample(): TrafficSample {
    for (const port of this.listeners.ports) this.own.add(port);
    // The accept queues of the dump must agree with the counters: a connection to sexton's own
    // listener completing between the two would be counted as the app's. Reread while they moved.
    let counters = readTcpCounters();
    const { native } = this.host;
    let dump = tcpSockets(native, SOCKET_LIMIT);
    for (let i = 0; i < CONSISTENT_READS; i++) {
      const after = readTcpCounters();
      if (after?.passiveOpens === counters?.passiveOpens) break;
      counters = after;
      dump = tcpSockets(native, SOCKET_LIMIT);
    }
    const sockets = typeof dump === 'number' ? undefined : dump.sockets;
    if ((!counters || typeof dump === 'number' || dump.truncated) && !this.warnedUnread) {
      this.warnedUnread = true;
      const why = !counters ? '/proc/net/snmp is unreadable; an unread sample counts as traffic'
        : typeof dump === 'number' ? `the socket dump failed (${errnoName(dump)}); an unread sample counts as traffic`
          : `more than ${SOCKET_LIMIT} TCP sockets: data on the others is not seen`;
      this.log.warn(`drain: ${why}`);
    }
    const sample: TrafficSample = { at: this.host.clock.now(), counters, sockets,
      ownAccepted: this.listeners.accepted };
    for (const port of listeningPorts(sample, this.own)) this.appPorts.add(port);
    return sample;
  }
}
