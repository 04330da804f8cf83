// The processes tests start, in one registry with one cleanup: test/support/cleanup.ts runs
// killStarted() after every test, in every file. A test registers what it starts (track), and
// any process it names that is not below one of those (a leftover re-parented elsewhere).
import { readdirSync, readFileSync } from 'node:fs';
import { childrenOf } from '../../src/harness/namespace';

export interface ProcStat {
  /** R, S, D, T, Z, … (field 3 of /proc/PID/stat). */
  state: string;
  ppid: number;
  pgrp: number;
  /** Foreground process group of the controlling terminal (field 8), -1 without one. */
  tpgid: number;
  /** Clock ticks since boot (field 22): with the pid, it names one process. */
  startTime: number;
}

/** A file's text, or undefined when it is not there (the /proc file of a process gone). */
export function readIfThere(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Fields of /proc/PID/stat (host view), or undefined once the process is gone. */
export function procStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may contain spaces and parentheses: split after the last ')'.
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: f[0], ppid: Number(f[1]), pgrp: Number(f[2]), tpgid: Number(f[5]), startTime: Number(f[19]) };
}

export const startTimeOf = (pid: number) => procStat(pid)?.startTime;

/** Whether pid has begun to exit (PF_EXITING in /proc/PID/stat's flags), or is gone. */
export function isExiting(pid: number): boolean {
  const stat = readIfThere(`/proc/${pid}/stat`);
  if (stat === undefined) return true;
  const PF_EXITING = 0x4;
  return (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[6]) & PF_EXITING) !== 0;
}

/** Whether `signal` is pending at pid, sent but not yet delivered (/proc SigPnd or ShdPnd). */
export function isPending(pid: number, signal: number): boolean {
  const status = readIfThere(`/proc/${pid}/status`) ?? '';
  return [...status.matchAll(/^(?:SigPnd|ShdPnd):\s+([0-9a-f]+)$/gm)].some((m) => ((BigInt(`0x${m[1]}`) >> BigInt(signal - 1)) & 1n) === 1n);
}

/**
 * Whether `signal` was sent to pid and is not yet acted on, or the process is past acting on
 * anything: it is pending, a fatal signal already turned into the SIGKILL the kernel queues for
 * the exit, or the process is exiting, a zombie or gone. For a process that does not catch the
 * signal (a caught one clears its bit), kill(2) marks it pending before it returns, so "not
 * signalled" right after an event proves that nothing sent it before that event: absence shown
 * by state, not by waiting.
 */
export function signalledOrGone(pid: number, signal: number): boolean {
  const state = procStat(pid)?.state;
  // Exiting: it dequeued its fatal signal and is leaving, so no bit is pending any more.
  if (state === undefined || state === 'Z' || state === 'X' || isExiting(pid)) return true;
  // 9: the SIGKILL a fatal signal becomes. Gone meanwhile counts as gone.
  return isPending(pid, signal) || isPending(pid, 9) || procStat(pid) === undefined;
}

/** Context switches (voluntary and not) of each thread of `pid`, by thread id: an idle thread has none. */
export function switchesByThread(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'latin1');
      out.set(Number(tid), [...status.matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0));
    } catch {
      // the thread ended
    }
  }
  return out;
}

/** Host pids of every process below pid, parents before children. */
export function hostDescendants(pid: number): number[] {
  const out: number[] = [];
  for (let i = -1; i < out.length; i++) out.push(...childrenOf(i < 0 ? pid : out[i]));
  return out;
}

/**
 * pid → start time. Pids are reused within a fraction of a second on these machines, and the
 * other test worker's processes must not pay for ours: a pid is ours only while its start time
 * is the one seen when it was tracked.
 */
const started = new Map<number, number>();

/** Registers a process a test started or named; cleanup kills it and everything below it. */
export function track(pid: number | undefined): void {
  if (pid === undefined || !Number.isInteger(pid) || pid <= 0) return;
  const startTime = startTimeOf(pid);
  if (startTime !== undefined) started.set(pid, startTime);
}

/** SIGKILLs every tracked process still alive, its descendants first (deepest first). */
export function killStarted(): void {
  for (const [pid, startTime] of started) {
    if (startTimeOf(pid) !== startTime) continue;  // gone: the pid may be someone else's now
    for (const each of [...hostDescendants(pid).reverse(), pid]) {
      try {
        process.kill(each, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  started.clear();
}
