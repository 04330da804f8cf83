// Starts sexton (or anything) as PID 1 of a fresh PID namespace and watches it from outside.
// The start and the finding of PID 1 are the harness's (src/harness/namespace.ts), shared with the
// harness and the bench; what stays here is the tests' own: output kept as text to assert on, a
// private /run per run, and waits scaled by SLOWDOWN. startPid1 hands back the running PID 1, as
// the bench's does; the harness's runAsPid1 runs to the end and hands back a report.
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { findPid1, inPidNamespace, startInPidNamespace } from '../../src/harness/namespace';
import { hostDescendants, procStat, startTimeOf, track } from './processes';


export const ROOT = path.resolve(__dirname, '..', '..');
export const SEXTON = path.join(ROOT, 'dist', 'sexton.js');
export const FIXTURES = path.join(ROOT, 'test', 'fixtures');
/** The native `sexton status` and `sexton probe` (native/tools/), as the build links them into dist/. */
export const NATIVE_STATUS = path.join(ROOT, 'dist', 'sexton-status');
export const NATIVE_PROBE = path.join(ROOT, 'dist', 'sexton-probe');

/**
 * How many times slower than this machine the tests run: 1 here; the cgroup v2 guest (qemu's TCG,
 * test/cgroup2) sets SEXTON_TEST_SLOWDOWN. The helpers' waits scale by it; nothing else does.
 */
export const SLOWDOWN = Number(process.env.SEXTON_TEST_SLOWDOWN ?? 1) || 1;

export interface Pid1Run {
  /** The unshare process (execa result promise; resolves, never rejects). */
  proc: ReturnType<typeof startUnshare>;
  /** Host pid of PID 1 inside the namespace (unshare's child); 0 when it was over before it was seen. */
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

export interface RunOptions {
  /** Extra `node` flags for sexton (e.g. a --require preload). */
  nodeArgs?: string[];
  env?: Record<string, string>;
  input?: string;
  timeoutMs?: number;
  /** Run this argv as PID 1 instead of node + sexton. */
  raw?: boolean;
  /** argv that ends by running the unshare command it is given (e.g. joining a cgroup first). */
  launcher?: string[];
}

export function sextonArgv(args: string[], nodeArgs: string[] = []): string[] {
  return [process.execPath, ...nodeArgs, SEXTON, ...args];
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resolves with the probe's first truthy value, checked every 10 ms; throws after timeoutMs. The
 * probe may be async (an HTTP GET, a socket's answer): its promise is awaited, not taken as truthy.
 */
export function until<T>(probe: () => Promise<T | undefined | false>, timeoutMs?: number, what?: string): Promise<T>;
export function until<T>(probe: () => T | undefined | false, timeoutMs?: number, what?: string): Promise<T>;
export async function until<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs * SLOWDOWN;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const PRIVATE_RUN = 'mount -t tmpfs -o size=1m sexton-test-run /run && exec "$@"';

/**
 * The argv that runs `argv` as PID 1 of a new PID namespace with its own /proc and its own /run
 * (an empty tmpfs, as a container has): a status socket given as a path under /run must not be
 * shared by two tests' sextons. sh execs, so `argv` keeps PID 1.
 */
export function asPid1(argv: string[]): string[] {
  return inPidNamespace(withPrivateRun(argv));
}

const withPrivateRun = (argv: string[]) => ['/bin/sh', '-c', PRIVATE_RUN, 'sh', ...argv];

/**
 * Waits until PID 1 has left asPid1's shell for its command: until then its only child may be
 * the shell's `mount`, and a signal would reach the shell (which drops it, as a namespace's
 * PID 1 without a handler). Just after unshare's fork, PID 1 is still unshare, before the shell:
 * that is not the command either (a test that took it for one signalled the shell, 1 run in 10).
 */
export async function untilExecuted(pid1: number): Promise<void> {
  await until(() => executed(pid1), 10_000, 'PID 1 to exec its command');
}

function executed(pid1: number): boolean {
  try {
    const cmdline = readFileSync(`/proc/${pid1}/cmdline`, 'utf8');
    return cmdline !== '' && !cmdline.includes(PRIVATE_RUN) && !cmdline.startsWith('unshare\0');
  } catch {
    return true;  // gone already: a command over at once
  }
}

/**
 * Starts `argv` (by default sexton with `args`) as PID 1 of a new PID namespace (asPid1).
 * unshare blocks and does not forward signals, so signals go to PID 1's host pid.
 */
function startUnshare(argv: string[], options: RunOptions) {
  return startInPidNamespace(withPrivateRun(argv), {
    prefix: options.launcher,
    env: options.env,
    input: options.input,
    timeoutMs: (options.timeoutMs ?? 30_000) * SLOWDOWN,
  });
}

export async function startPid1(args: string[], options: RunOptions = {}): Promise<Pid1Run> {
  const argv = options.raw ? args : sextonArgv(args, options.nodeArgs);
  const started = Date.now();
  const proc = startUnshare(argv, options);
  const unsharePid = proc.pid as number;
  track(unsharePid);  // unshare --kill-child takes the namespace with it
  let out = '';
  let err = '';
  proc.stdout?.on('data', (d) => (out += d));
  proc.stderr?.on('data', (d) => (err += d));
  // A PID 1 that exits at once can be gone before the first look: unshare's exit is the event
  // that ends the wait then, and the run has no pid to signal (pid1 is 0).
  const pid1 = await findPid1(unsharePid, proc, { timeoutMs: 20_000 * SLOWDOWN, ready: executed });
  const pid1Started = pid1 ? startTimeOf(pid1) : undefined;
  // Wait for sexton to be running its child before handing over: signals before that are racy.
  return {
    proc,
    pid1,
    stdout: () => out,
    stderr: () => err,
    signal(sig) {
      if (!pid1 || startTimeOf(pid1) !== pid1Started) return;  // gone: its pid may be someone else's now
      try {
        process.kill(pid1, sig);
      } catch {
        // already gone
      }
    },
    async done() {
      const result = await proc;
      return { exitCode: result.exitCode, stdout: out, stderr: err, durationMs: Date.now() - started };
    },
    async waitFor(text, stream = 'stdout', timeoutMs = 15_000) {
      const read = () => (stream === 'stdout' ? out : err);
      const has = () => (typeof text === 'string' ? read().includes(text) : text.test(read()));
      await until(has, timeoutMs, `${String(text)} on ${stream}; have: ${JSON.stringify(read().slice(-500))}`);
    },
  };
}

export function fixture(name: string): string {
  return path.join(FIXTURES, name);
}

export const TINI = '/usr/bin/tini';

/** Fails (never skips) when Debian's tini, the comparison baseline, is missing. */
export function requireTini(): void {
  if (!existsSync(TINI)) {
    throw new Error(`${TINI} is missing: these tests compare sexton with Debian's tini; install it with "apt-get install -y tini"`);
  }
}

/** Processes in state Z among `pid`'s descendants (host view). */
export function zombiesUnder(pid: number): number[] {
  return hostDescendants(pid).filter((child) => procStat(child)?.state === 'Z');
}

export function requireBuilt(): void {
  for (const file of [SEXTON, NATIVE_STATUS, NATIVE_PROBE]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run "npm run build" first`);
  }
}
