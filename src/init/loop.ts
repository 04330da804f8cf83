// The init's one input queue. The reaper's events, the notifier's notices, every timer and the
// listeners' answers are posted here and handled one at a time, in order, by the one handler
// (Supervisor.handle): a handler that posts waits its turn instead of running inside another.
// Timers are named; the clock is the host's, so a test drives it by hand.
import type { Clock } from '../platform/host';
import type { Timer } from './lifecycle';

/** Every timer of the init; each fires as a { kind: 'timer' } input. */
export type TimerName =
  /** The stop sequence's. */
  | Timer
  /** The exporters start a moment after the child. */
  | 'exporters'
  /** Zombies too young to blame at the stop are looked at again. */
  | 'zombie-relook'
  /** The OOM kill count, read again after an event; memory given back after one, after activity. */
  | 'oom-recheck' | 'oom-release' | 'release-now' | 'release-soon' | 'settle'
  /** The drain's traffic samples. */
  | 'drain-sample';

export interface Timers {
  /** Starts `name` unless it runs; `ms` 0 with soon: once this turn of the event loop is over. */
  start(name: TimerName, ms: number, how?: { repeat?: boolean; keepAlive?: boolean; soon?: boolean }): void;
  /** Whether it was running. */
  cancel(name: TimerName): boolean;
}

export type TimerInput = { kind: 'timer'; timer: TimerName };

export class Loop<In> implements Timers {
  private readonly queue: (In | TimerInput)[] = [];
  private busy = false;
  private readonly cancels = new Map<TimerName, () => void>();

  constructor(private readonly clock: Clock, private readonly handle: (input: In | TimerInput) => void,
    private readonly report: (error: unknown) => void) {}

  /** Handles `input` now, or after the one being handled and those before it. */
  post(input: In | TimerInput): void {
    this.queue.push(input);
    if (this.busy) return;
    this.busy = true;
    try {
      for (let next = this.queue.shift(); next !== undefined; next = this.queue.shift()) {
        // Node swallows an exception thrown in an addon's callback: each input is guarded.
        try {
          this.handle(next);
        } catch (error) {
          this.report(error);
        }
      }
    } finally {
      this.busy = false;
    }
  }

  start(name: TimerName, ms: number, { repeat = false, keepAlive = false, soon = false } = {}): void {
    if (this.cancels.has(name)) return;
    const fire = () => {
      if (!repeat) this.cancels.delete(name);
      this.post({ kind: 'timer', timer: name });
    };
    if (soon) {
      let cancelled = false;
      this.clock.soon(() => cancelled || fire());
      this.cancels.set(name, () => (cancelled = true));
      return;
    }
    this.cancels.set(name, this.clock.after(ms, fire, { repeat, keepAlive }));
  }

  cancel(name: TimerName): boolean {
    this.cancels.get(name)?.();
    return this.cancels.delete(name);
  }
}
