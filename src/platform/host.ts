// What the init runs on, decided once at boot and handed down: whether it is PID 1, whether
// /proc is its namespace's own, where /proc and the cgroup mount are, the addon, and a clock.
// Nothing below boot asks the machine these things again, so the init runs as well on a fake
// host (test/unit/init/supervisor.test.ts) as on a real one.
import type { Native } from './native';

export interface Clock {
  /** Wall-clock milliseconds. */
  now(): number;
  /** Milliseconds that never step backwards. */
  monotonic(): number;
  /**
   * Calls fire after `ms` (every `ms` with repeat). keepAlive: whether the timer alone keeps
   * sexton's event loop running. Returns what cancels it.
   */
  after(ms: number, fire: () => void, how: { repeat?: boolean; keepAlive: boolean }): () => void;
  /** Calls fire once this turn of the event loop is over. */
  soon(fire: () => void): void;
}

export interface Host {
  /** PID 1 of its namespace: kill(-1) reaches every process, seen or not. */
  isInit: boolean;
  pid: number;
  ppid: number;
  /** /proc shows sexton's own PID namespace: if not, nothing is scanned or named. */
  procTrusted: boolean;
  procRoot: string;
  cgroupRoot: string;
  /** PID 1's command name (/proc/1/comm) when sexton is not PID 1, where readable. */
  pid1Name?: string;
  native: Native;
  clock: Clock;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => Number(process.hrtime.bigint()) / 1e6,
  after(ms, fire, { repeat = false, keepAlive }) {
    const handle = repeat ? setInterval(fire, ms) : setTimeout(fire, ms);
    if (!keepAlive) handle.unref();
    return () => (repeat ? clearInterval(handle) : clearTimeout(handle));
  },
  soon: (fire) => void setImmediate(fire),
};
