// Runs a command as PID 1 of a fresh PID namespace and watches it from outside.
// unshare neither forwards signals nor reports PID 1's pid: PID 1 is unshare's child, found in
// /proc, and signals go to it directly. SIGKILL to unshare takes the whole namespace down
// (--kill-child), so cleaning up means killing the unshare processes this module started.
//
// The unshare argv and the finding of PID 1 are the harness's (src/harness/namespace.ts, built
// into dist/harness.js), shared with the harness and the tests. The start stays here, a bare
// spawn rather than the harness's execa: a measurement must have no layer in its timed path. PID 1
// is handed over the moment it is forked, before its exec (startup-window times that exec), its
// exit is stamped in the child's own exit event, and its stdout is not piped unless it is read.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

import harness from '../../dist/harness.js';

export const UNSHARE = harness.PID_NAMESPACE;
export const { childrenOf, findPid1 } = harness;
/**
 * PID 1's environment: PATH only, as in a container. The host's variables do not belong in the
 * measurement: NODE_EXTRA_CA_CERTS alone, set on the machines this bench ran on, makes every
 * Node process parse a CA bundle at startup (~30 ms).
 */
export const PID1_ENV = { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin' };

/** unshare processes still running: killed by killAll() (and on the bench's exit). */
const live = new Set();

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** Nanoseconds of CLOCK_MONOTONIC (libuv's hrtime), the clock the child stamps with. */
export const now = () => process.hrtime.bigint();
export const msBetween = (from, to) => Number(to - from) / 1e6;

export async function until(probe, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(1);
  }
}

/**
 * Starts `argv` as PID 1. With `lines: true` its stdout is read line by line (nextLine);
 * otherwise stdout is discarded. stderr is kept (the first 10 kB) for error messages.
 */
export async function startPid1(argv, { lines = false, prefix = [] } = {}) {
  // `prefix`: a command that ends by exec'ing its arguments (unshare …), e.g. to join a cgroup.
  const command = [...prefix, ...UNSHARE, ...argv];
  const proc = spawn(command[0], command.slice(1), { stdio: ['ignore', lines ? 'pipe' : 'ignore', 'pipe'], env: PID1_ENV });
  live.add(proc);
  let stderr = '';
  proc.stderr.on('data', (chunk) => {
    if (stderr.length < 10_000) stderr += chunk;
  });
  let hasExited = false;
  const exited = new Promise((resolve, reject) => {
    proc.on('error', reject);
    proc.on('exit', (code, signal) => {
      const at = now();
      hasExited = true;
      live.delete(proc);
      resolve({ code, signal, at });
    });
  });

  const queued = [];
  const waiting = [];
  if (lines) {
    createInterface({ input: proc.stdout }).on('line', (line) => {
      const waiter = waiting.shift();
      if (waiter) waiter(line);
      else queued.push(line);
    });
  }
  const describe = () => `'${argv.join(' ')}'${stderr ? `, stderr: ${stderr.trim().slice(-500)}` : ''}`;

  const pid1 = await findPid1(proc.pid, exited, { timeoutMs: 5000, everyMs: 1 }).catch((error) => {
    throw new Error(`${error.message}: ${describe()}`);
  });
  if (pid1 === 0 || hasExited) {
    await exited;  // a spawn that failed says why
    throw new Error(`PID 1 exited at once: ${describe()}`);
  }

  return {
    pid1,
    exited,
    describe,
    /** What PID 1 wrote to stderr so far (the first 10 kB). */
    stderr: () => stderr,
    /** The next stdout line, or null after timeoutMs. */
    nextLine(timeoutMs) {
      if (queued.length > 0) return Promise.resolve(queued.shift());
      return new Promise((resolve) => {
        const waiter = (line) => {
          clearTimeout(timer);
          resolve(line);
        };
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(waiter), 1);
          resolve(null);
        }, timeoutMs);
        waiting.push(waiter);
      });
    },
    /** Waits for a stdout line equal to `text`; throws after timeoutMs. */
    async expectLine(text, timeoutMs = 5000) {
      const line = await this.nextLine(timeoutMs);
      if (line !== text) throw new Error(`expected '${text}' from ${describe()}, got ${JSON.stringify(line)}`);
    },
    signal(name) {
      process.kill(pid1, name);
    },
    /** SIGKILLs the namespace and waits until unshare is gone. */
    async kill() {
      if (!hasExited) proc.kill('SIGKILL');
      await exited;
    },
  };
}

/** SIGKILLs every namespace still running (bench crash, Ctrl-C, exit). */
export function killAll() {
  for (const proc of live) {
    try {
      proc.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  live.clear();
}
