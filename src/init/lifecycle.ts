// The init's one state and the stop sequence as a pure machine: inputs (the child's start and
// exit, stop signals, the app's sd_notify datagrams, its own timers) in, actions out. No clock, no
// /proc, no signals here: the supervisor's loop feeds the inputs, each with the moment it is
// handled, and carries out the actions. Readiness and the quiet window read this state.
//
//   running ──stop signal──▶ draining (drain delay; with a quiet window,
//      │                     until traffic stops) ──▶ stopping (grace period)
//      │                                                    │
//      └──main child exits──▶ leftovers get TERM ◀──────────┘ main child exits (draining too)
//                             grace period over ──▶ killing: SIGKILL survivors
//   no children left and the main child gone ──▶ finish (exit with its status)

import type { Options } from '../config/options';
import type { DrainEndReason, MainExit } from '../report/stats';

export type Phase = 'starting' | 'running' | 'draining' | 'stopping' | 'killing';

/** What one sd_notify datagram says (readiness.ts reads it); keys sexton does not act on are left out. */
export interface Notification {
  ready?: boolean;
  stopping?: boolean;
  reloading?: boolean;
  status?: string;
}

/** Why a datagram was ignored: each is counted. */
export type Rejection = 'malformed' | 'oversized' | 'foreign' | 'descriptors';

export type NotifyCounts = Record<Rejection | 'accepted', number>;

/** What the app said of itself over sd_notify. */
export interface AppState {
  ready: boolean;
  stopping: boolean;
  status?: string;
  counts: NotifyCounts;
}

/** A drain, from the stop signal (with a drain delay) to its end, in the host clock's milliseconds. */
export interface DrainWindow {
  startedAt: number;
  endedAt?: number;
  endedBy?: DrainEndReason;
}

/** Everything the init knows of its own life; the lifecycle alone changes it. */
export interface InitState {
  phase: Phase;
  /** 0 until the child runs. */
  mainPid: number;
  /** Set once the main child is reaped, or the status sexton leaves with when it could not start. */
  mainExit?: MainExit;
  drain?: DrainWindow;
  /** Stop signals acted on so far; the native counter says how many arrived. */
  stopSignalsHandled: number;
  survivorsKilled: number;
  app: AppState;
}

/** drainQuiet is never more than drainDelay (options.ts refuses it); drainDelay 0: the handler forwards the signal. */
export interface LifecycleSettings extends Pick<Options, 'drainDelay' | 'drainQuiet' | 'grace'> {
  /** The stop signal's name, for the log. */
  stopSignalName: string;
  /** PID 1 reaches every process of its namespace even unseen (kill(-1)). */
  isInit: boolean;
}

export type Input =
  | { kind: 'started'; pid?: number }
  | { kind: 'stop-signal' }
  /** The native counter of stop signals: one step per arrival not yet acted on. */
  | { kind: 'stop-signals'; arrived: number }
  | { kind: 'app-notified'; notification: Notification }
  | { kind: 'app-rejected'; why: Rejection }
  | { kind: 'survivors-killed'; count: number }
  /** The child could not be started: sexton exits with this status. */
  | { kind: 'start-failed'; exit: MainExit }
  /** One of its timers fired (kill-check: who outlived SIGKILL could not be killed; the kill round repeats itself). */
  | { kind: 'timer'; timer: Exclude<Timer, 'kill-repeat'> }
  /** No traffic reached the app for the quiet window. */
  | { kind: 'traffic-quiet' }
  /** leftovers: live processes other than sexton, or 'unseen' when /proc is not ours. */
  | { kind: 'main-exited'; lastChild: boolean; leftovers: number | 'unseen'; exit: MainExit }
  | { kind: 'no-children' };

export type Timer = 'drain' | 'grace' | 'kill-repeat' | 'kill-check' | 'backstop';

export type Action =
  | { kind: 'log'; level: 'warn' | 'error'; message: string }
  /** Log and remember the live parents that hold zombies (what --strict calls a leak). */
  | { kind: 'report-zombie-parents' }
  /** Send the stop signal (after rewrites) to the main child. */
  | { kind: 'forward-stop-signal' }
  /** TERM to processes re-parented to sexton: nobody else will tell them to stop. */
  | { kind: 'terminate-daemons' }
  /** TERM, once each, to every live process left. */
  | { kind: 'terminate-leftovers' }
  /** TERM to the whole namespace with kill(-1): what PID 1 can do without seeing it. */
  | { kind: 'terminate-unseen' }
  /** Report and SIGKILL whatever is left. */
  | { kind: 'kill-survivors' }
  /** Carry out again the steps of the stop sequence that failed (a /proc read out of descriptors). */
  | { kind: 'retry-failed-steps' }
  /** Name every process still alive after SIGKILL, and what it waits on. */
  | { kind: 'report-unkillable' }
  /** Watch the network namespace's traffic for the quiet window of this drain. */
  | { kind: 'watch-traffic'; drain: Readonly<DrainWindow> }
  /** A drain that watched traffic is over: why, for the operator's line. */
  | { kind: 'end-drain'; by: DrainEndReason }
  | { kind: 'start-timer'; timer: Timer; seconds: number }
  | { kind: 'cancel-timer'; timer: Timer }
  | { kind: 'finish' };

/** How often the kill round repeats until the tree is empty (a child may fork meanwhile); `sexton probe`'s too. */
export const KILL_REPEAT_SECONDS = 0.1;
/**
 * How long after SIGKILL a live process counts as one that could not be killed: the kernel ends
 * a killed process in microseconds unless it sleeps uninterruptibly (state D) or is frozen.
 */
export const KILL_CHECK_SECONDS = 0.5;
/** Exit anyway this long after SIGKILL, if something in state D refuses to go. */
export const KILL_BACKSTOP_SECONDS = 2;

export class Lifecycle {
  private readonly s: InitState = {
    phase: 'starting', mainPid: 0, stopSignalsHandled: 0, survivorsKilled: 0,
    app: { ready: false, stopping: false, counts: { accepted: 0, malformed: 0, oversized: 0, foreign: 0,
      descriptors: 0 } },
  };

  constructor(private readonly settings: LifecycleSettings) {}

  get state(): Readonly<InitState> {
    return this.s;
  }

  get phase(): Phase {
    return this.s.phase;
  }

  /** draining, stopping or killing. */
  get shuttingDown(): boolean {
    return this.phase === 'draining' || this.phase === 'stopping' || this.phase === 'killing';
  }

  /** at: when the input is handled, on the host's clock (a drain's window is timed by it). */
  step(input: Input, at = 0): Action[] {
    switch (input.kind) {
      case 'started':
        this.s.phase = 'running';
        this.s.mainPid = input.pid ?? 0;
        return [];
      case 'stop-signal':
        this.s.stopSignalsHandled++;
        return this.onStopSignal(at);
      case 'stop-signals': {
        const actions: Action[] = [];
        while (this.s.stopSignalsHandled < input.arrived) actions.push(...this.step({ kind: 'stop-signal' }, at));
        return actions;
      }
      case 'app-notified':
        return this.onNotification(input.notification);
      case 'app-rejected':
        this.s.app.counts[input.why]++;
        return [];
      case 'survivors-killed':
        this.s.survivorsKilled += input.count;
        return [];
      case 'start-failed':
        this.s.mainExit = input.exit;
        return [];
      case 'timer':
        return this.onTimer(input.timer, at);
      case 'traffic-quiet':
        return this.phase === 'draining' ? this.forwardAfterDrain('quiet', at) : [];
      case 'main-exited':
        return this.onMainExit(input, at);
      case 'no-children':
        return this.s.mainExit ? [{ kind: 'finish' }] : [];
    }
  }

  private onTimer(timer: Exclude<Timer, 'kill-repeat'>, at: number): Action[] {
    switch (timer) {
      case 'drain':
        return this.phase === 'draining' ? this.forwardAfterDrain('cap', at) : [];
      case 'grace':
        this.s.phase = 'killing';
        return [
          { kind: 'kill-survivors' },
          { kind: 'start-timer', timer: 'kill-repeat', seconds: KILL_REPEAT_SECONDS },
          { kind: 'start-timer', timer: 'kill-check', seconds: KILL_CHECK_SECONDS },
          { kind: 'start-timer', timer: 'backstop', seconds: KILL_BACKSTOP_SECONDS },
        ];
      case 'kill-check':
        return this.phase === 'killing' ? [{ kind: 'report-unkillable' }] : [];
      case 'backstop':
        return [{ kind: 'log', level: 'error',
          message: 'processes are still there after SIGKILL (uninterruptible?): exiting anyway' }, { kind: 'finish' }];
    }
  }

  private onStopSignal(at: number): Action[] {
    const { drainDelay, drainQuiet, grace, stopSignalName: name } = this.settings;
    // The tree is already being taken down; a step of that which failed gets another chance.
    const retry: Action = { kind: 'retry-failed-steps' };
    if (this.s.mainExit) return [retry];
    if (this.phase === 'running') {
      const drain = drainQuiet > 0
        ? `once no traffic reached the app for ${drainQuiet}s (at most ${drainDelay}s), `
        : drainDelay > 0 ? `after a ${drainDelay}s drain delay, ` : '';
      const actions: Action[] = [
        { kind: 'report-zombie-parents' },
        { kind: 'log', level: 'warn', message: `received ${name}: stopping ${drain}grace period ${grace}s` },
      ];
      if (drainDelay === 0) return [...actions, ...this.startStopping()];  // the handler forwarded it
      this.s.phase = 'draining';
      const window = this.s.drain = { startedAt: at };
      const watch: Action[] = drainQuiet > 0 ? [{ kind: 'watch-traffic', drain: window }] : [];
      // The watch first: its clock starts no later than the cap's.
      return [...actions, ...watch, { kind: 'start-timer', timer: 'drain', seconds: drainDelay }];
    }
    if (this.phase === 'draining') {
      return [{ kind: 'log', level: 'warn', message: `received ${name} again: skipping the rest of the drain delay` },
        ...this.forwardAfterDrain('second-signal', at)];
    }
    // Repeated stop signals reach the child, as they do without a delay (the handler's work).
    if (this.phase === 'stopping' && drainDelay > 0) return [{ kind: 'forward-stop-signal' }, retry];
    return this.shuttingDown ? [retry] : [];
  }

  /** The drain ends once, leaving 'draining'; only a drain that watched traffic has something to tell. */
  private endDrain(by: DrainEndReason, at: number): Action[] {
    if (this.phase !== 'draining' || !this.s.drain) return [];
    Object.assign(this.s.drain, { endedAt: at, endedBy: by });
    this.s.phase = 'stopping';
    return this.settings.drainQuiet > 0 ? [{ kind: 'end-drain', by }] : [];
  }

  /** The drain is over (its timer too, unless the cap is what ended it): the stop signal goes out. */
  private forwardAfterDrain(by: DrainEndReason, at: number): Action[] {
    const cancel: Action[] = by === 'cap' ? [] : [{ kind: 'cancel-timer', timer: 'drain' }];
    return [...this.endDrain(by, at), ...cancel, { kind: 'forward-stop-signal' }, ...this.startStopping()];
  }

  /** The grace period starts with the stop signal's forwarding; daemons get TERM with it. */
  private startStopping(): Action[] {
    this.s.phase = 'stopping';
    return [{ kind: 'terminate-daemons' }, { kind: 'start-timer', timer: 'grace', seconds: this.settings.grace }];
  }

  private onMainExit({ lastChild, leftovers, exit }: Input & { kind: 'main-exited' }, at: number): Action[] {
    const { grace, isInit } = this.settings;
    const stopping = this.phase === 'stopping';  // a grace period runs already
    const actions: Action[] = [...this.endDrain('main-exited', at), { kind: 'cancel-timer', timer: 'drain' }];
    this.s.mainExit = exit;
    if (lastChild) return [...actions, { kind: 'finish' }];  // nothing left to wait for
    if (this.phase === 'killing') return actions;
    if (leftovers === 'unseen') {
      if (!isInit || stopping) return actions;
      this.s.phase = 'stopping';
      return [
        ...actions,
        { kind: 'log', level: 'warn',
          message: `main child is gone; sending TERM to whatever is left (unseen: /proc is not this namespace's), ` +
            `grace period ${grace}s` },
        { kind: 'terminate-unseen' },
        { kind: 'start-timer', timer: 'grace', seconds: grace },
      ];
    }
    if (leftovers === 0) return actions;  // the reaper reports "no children" next
    if (!this.shuttingDown) actions.push({ kind: 'report-zombie-parents' });
    this.s.phase = 'stopping';
    actions.push(
      { kind: 'log', level: 'warn',
        message: `main child is gone; ${leftovers} process(es) left: sending ` +
          `TERM, ${stopping ? 'within the grace period' : `grace period ${grace}s`}` },
      { kind: 'terminate-leftovers' },
    );
    if (!stopping) actions.push({ kind: 'start-timer', timer: 'grace', seconds: grace });
    return actions;
  }

  /** One datagram's meaning, from a sender already judged. */
  private onNotification(n: Notification): Action[] {
    const app = this.s.app;
    app.counts.accepted++;
    if (n.status !== undefined) app.status = n.status;
    if (n.stopping) app.stopping = true;
    if (n.reloading) app.ready = false;
    if (n.ready !== undefined) app.ready = n.ready;
    return [];
  }
}
