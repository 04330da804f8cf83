// Runs sexton (or anything) as PID 1 of a fresh PID namespace and watches it from outside.
import { execa } from 'execa';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');
export const SEXTON = path.join(ROOT, 'dist', 'sexton.js');
export const FIXTURES = path.join(ROOT, 'test', 'fixtures');

export interface Pid1Run {
  /** The unshare process (execa result promise; resolves, never rejects). */
  proc: ReturnType<typeof startUnshare>;
  /** Host pid of PID 1 inside the namespace (unshare's child). */
  pid1: number;
  /** Text written so far to stdout / stderr. */
  stdout(): string;
  stderr(): string;
  /** Sends a signal to PID 1 by its host pid. */
  signal(sig: NodeJS.Signals | number): void;
  /** Waits for the run to end; returns exit code and output. */
  done(): Promise<{ exitCode: number | undefined; stdout: string; stderr: string; durationMs: number }>;
  /** Waits until stdout (or stderr) contains text. */
  waitFor(text: string | RegExp, stream?: 'stdout' | 'stderr', timeoutMs?: number): Promise<void>;
}

/** Runs not yet awaited; a run is ours to kill only while Node has not seen it exit. */
const live = new Set<ReturnType<typeof startUnshare>>();

export interface RunOptions {
  /** Extra `node` flags for sexton (e.g. a --require preload). */
  nodeArgs?: string[];
  env?: Record<string, string>;
  input?: string;
  timeoutMs?: number;
  /** Run this argv as PID 1 instead of node + sexton. */
  raw?: boolean;
}

export function sextonArgv(args: string[], nodeArgs: string[] = []): string[] {
  return [process.execPath, ...nodeArgs, SEXTON, ...args];
}

/** Host pids of the direct children of pid. */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (text) out.push(...text.split(/\s+/).map(Number));
    }
  } catch {
    // gone
  }
  return out;
}

export async function until<T>(probe: () => T | undefined | false, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Starts `argv` (by default sexton with `args`) as PID 1 of a new PID namespace with its own /proc.
 * unshare blocks and does not forward signals, so signals go to PID 1's host pid.
 */
function startUnshare(argv: string[], options: RunOptions) {
  return execa('unshare', ['--pid', '--fork', '--mount-proc', '--kill-child', '--', ...argv], {
    reject: false,
    all: true,
    env: { ...options.env },
    input: options.input,
    stdin: options.input === undefined ? 'ignore' : undefined,
    timeout: options.timeoutMs ?? 30_000,
    killSignal: 'SIGKILL',
  });
}

export async function runAsPid1(args: string[], options: RunOptions = {}): Promise<Pid1Run> {
  const argv = options.raw ? args : sextonArgv(args, options.nodeArgs);
  const started = Date.now();
  const proc = startUnshare(argv, options);
  const unsharePid = proc.pid as number;
  live.add(proc);
  let out = '';
  let err = '';
  proc.stdout?.on('data', (d) => (out += d));
  proc.stderr?.on('data', (d) => (err += d));
  const pid1 = await until(() => childrenOf(unsharePid)[0], 10_000, 'PID 1 to start');
  const pid1Started = startTimeOf(pid1);
  // Wait for sexton to be running its child before handing over: signals before that are racy.
  return {
    proc,
    pid1,
    stdout: () => out,
    stderr: () => err,
    signal(sig) {
      if (startTimeOf(pid1) !== pid1Started) return;  // gone: its pid may be someone else's now
      try {
        process.kill(pid1, sig);
      } catch {
        // already gone
      }
    },
    async done() {
      const result = await proc;
      live.delete(proc);
      return { exitCode: result.exitCode, stdout: out, stderr: err, durationMs: Date.now() - started };
    },
    async waitFor(text, stream = 'stdout', timeoutMs = 15_000) {
      const read = () => (stream === 'stdout' ? out : err);
      const has = () => (typeof text === 'string' ? read().includes(text) : text.test(read()));
      await until(has, timeoutMs, `${String(text)} on ${stream}; have: ${JSON.stringify(read().slice(-500))}`);
    },
  };
}

/** SIGKILL every run still alive (unshare --kill-child takes the namespace with it). */
export function killLeftovers(): void {
  for (const proc of live) {
    // Once Node has reaped it, its pid may already belong to another test's process.
    if (proc.exitCode !== null || proc.signalCode !== null) continue;
    proc.kill('SIGKILL');
  }
  live.clear();
}

/**
 * Host pids a test started, each remembered with its start time, so that cleanup kills only
 * the process it means: pids are reused within a fraction of a second on these machines, and
 * the other test worker's processes must not pay for ours.
 */
export class StartedPids {
  private readonly started = new Map<number, string>();

  add(pid: number): void {
    const startTime = startTimeOf(pid);
    if (startTime !== undefined) this.started.set(pid, startTime);
  }

  killAll(): void {
    for (const [pid, startTime] of this.started) {
      if (startTimeOf(pid) !== startTime) continue;
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    this.started.clear();
  }
}

function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** Processes in state Z among `pid`'s descendants (host view). */
export function zombiesUnder(pid: number): number[] {
  const out: number[] = [];
  const queue = [pid];
  while (queue.length) {
    for (const child of childrenOf(queue.shift() as number)) {
      queue.push(child);
      try {
        const stat = readFileSync(`/proc/${child}/stat`, 'utf8');
        if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) out.push(child);
      } catch {
        // gone
      }
    }
  }
  return out;
}

export function requireBuilt(): void {
  if (!existsSync(SEXTON)) throw new Error(`${SEXTON} is missing: run "npm run build" first`);
}
