// Whether the pod should get traffic: the answer to GET /readyz and `sexton status --ready`.
// Pure policy: the supervisor feeds it the child's start and exit, the app's sd_notify
// datagrams, and a way to read the stop signal's native counter, which the handler moves the
// instant the signal arrives — so readiness drops before JS has even heard of the stop.
import type { Notification, Rejection } from './sd-notify';
import type { HealthState } from '../report/exporters/health';

/** --ready-when: ready once the child runs, or once it sends READY=1. */
export type ReadyWhen = 'started' | 'notify';

export interface NotifyCounts {
  accepted: number;
  malformed: number;
  oversized: number;
  foreign: number;
  descriptors: number;
}

export class Readiness {
  private mainRunning = false;
  private mainGone = false;
  private appReady = false;
  private appStopping = false;
  private appStatus?: string;
  readonly counts: NotifyCounts = { accepted: 0, malformed: 0, oversized: 0, foreign: 0, descriptors: 0 };

  /** stopSignals: the stop signal's arrivals so far (native counter; > 0 means stopping). */
  constructor(readonly readyWhen: ReadyWhen, private readonly stopSignals: () => number) {}

  started(): void {
    this.mainRunning = true;
  }

  mainExited(): void {
    this.mainRunning = false;
    this.mainGone = true;
  }

  /** One datagram's meaning, from a sender already judged (see rejected for the others). */
  notified(n: Notification): void {
    this.counts.accepted++;
    if (n.status !== undefined) this.appStatus = n.status;
    if (n.stopping) this.appStopping = true;
    if (n.reloading) this.appReady = false;
    if (n.ready !== undefined) this.appReady = n.ready;
  }

  rejected(why: Rejection): void {
    this.counts[why]++;
  }

  state(): HealthState {
    const status = this.appStatus === undefined ? '' : ` (app: ${this.appStatus})`;
    const not = (why: string): HealthState => ({ live: true, ready: false, reason: `${why}${status}` });
    if (this.stopSignals() > 0) return not('stopping: the stop signal arrived');
    if (this.mainGone) return not('the main child has exited');
    if (!this.mainRunning) return not('starting');
    if (this.appStopping) return not('stopping: the app sent STOPPING=1');
    if (this.readyWhen === 'notify' && !this.appReady) return not('waiting for READY=1 from the app');
    return { live: true, ready: true, reason: `ready${status}` };
  }
}
