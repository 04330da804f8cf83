// The drain that waits for quiet (--drain-quiet): from the stop signal on, samples the network
// namespace's traffic and says when none has reached the app for the quiet window. It runs only
// during a stop: an idle sexton never samples. Policy in quiet.ts; this takes the samples.
import type { Logger } from '../platform/log';
import type { Options } from '../config/options';
import type { Host } from '../platform/host';
import type { OwnListeners } from '../platform/own-listeners';
import type { Timers } from './loop';
import { tcpSockets } from '../platform/tcp-sockets';
import { hostNetworkSign, readTcpCounters } from '../platform/netns';
import { errnoName } from '../platform/os-constants';
import { describeDrain, describeLateArrivals } from '../report/stats';
import { arrivalsBetween, DrainEndReason, DrainReport, listeningPorts, QuietWindow, TrafficSample } from './quiet';

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
  private readonly own: Set<number>;
  private warnedUnread = false;

  constructor(
    private readonly settings: { quietSeconds: number; capSeconds: number; ownPorts: number[] },
    private readonly host: Pick<Host, 'native' | 'clock'>,
    private readonly log: Logger,
    private readonly timers: Timers,
    private readonly listeners: OwnListeners,
  ) {
    this.own = new Set(settings.ownPorts);
  }

  /** With --drain-quiet; undefined without. */
  static fromOptions(options: Options, host: Host, log: Logger, timers: Timers,
    listeners: OwnListeners): TrafficDrain | undefined {
    if (options.drainQuiet <= 0) return undefined;
    // Probes of /readyz and scrapes of /metrics are sexton's own traffic, not the app's.
    const ownPorts = [options.metrics?.port, options.health?.port].filter((port): port is number => port !== undefined);
    return new TrafficDrain({ quietSeconds: options.drainQuiet, capSeconds: options.drainDelay, ownPorts }, host, log,
      timers, listeners);
  }

  /** At the stop signal. */
  start(): void {
    if (this.window) return;
    const { quietSeconds, capSeconds } = this.settings;
    const host = hostNetworkSign();
    this.window = new QuietWindow(quietSeconds * 1000, capSeconds * 1000, this.host.clock.now(), host ? 'blind'
      : 'traffic');
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

  /** The stop signal went out: the operator's line; sampling goes on, counting late arrivals. */
  forwarded(by: DrainEndReason): void {
    if (!this.window || this.window.isForwarded) return;
    this.tick();  // what came since the last sample belongs before the forward
    this.window.forwarded(by, this.host.clock.now());
    this.log.warn(describeDrain(this.window.report()));
  }

  /** At exit: the last count, and a line if the balancer kept sending after the forward. */
  finish(): void {
    if (!this.window) return;
    if (this.timers.running('drain-sample')) this.tick();
    this.timers.cancel('drain-sample');
    const late = describeLateArrivals(this.window.report());
    if (late) this.log.warn(late);
  }

  report(): DrainReport | null {
    return this.window?.report() ?? null;
  }

  /** One sample; true once no traffic reached the app for the quiet window. */
  tick(): boolean {
    if (!this.window || !this.last) return false;
    const sample = this.sample();
    const arrivals = arrivalsBetween(this.last, sample, this.appPorts, this.own);
    this.last = sample;
    return this.window.observe(arrivals, sample.at);
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
