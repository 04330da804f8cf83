// The PID namespace a run lives in, seen from outside: how it is made, its PID 1, its processes.
// The one place for these: the harness, the tests and the bench all use it.
import { execa } from 'execa';
import { readdirSync, readFileSync } from 'node:fs';
import { descendantsOf, listProcesses, parseStat, ProcessInfo, readProcess } from '../platform/procfs';
import type { NamespaceMode } from './userns';

/**
 * Runs what follows as PID 1 of a fresh PID namespace with its own /proc. unshare forwards no
 * signal and reports no pid: PID 1 is its child (childrenOf), and SIGKILL to unshare takes the
 * whole namespace down (--kill-child).
 */
export const PID_NAMESPACE: readonly string[] = ['unshare', '--pid', '--fork', '--mount-proc', '--kill-child', '--'];

/**
 * The same for a user without CAP_SYS_ADMIN: a user namespace first, where it is root (mapped to
 * itself outside), and may make the PID and mount namespaces. Signals and /proc work from
 * outside as before: the processes in it are the user's own.
 */
export const USER_PID_NAMESPACE: readonly string[] = [
  'unshare', '--user', '--map-root-user', '--pid', '--fork', '--mount-proc', '--kill-child', '--',
];

export function inPidNamespace(argv: readonly string[], mode: NamespaceMode = 'pid'): string[] {
  return [...(mode === 'user' ? USER_PID_NAMESPACE : PID_NAMESPACE), ...argv];
}

export interface StartOptions {
  namespace?: NamespaceMode;
  /** argv that ends by running the unshare command it is given (e.g. joining a cgroup first). */
  prefix?: readonly string[];
  /** Added to this process's environment. */
  env?: Record<string, string>;
  /** PID 1's stdin; none (ignored) by default. */
  input?: string;
  /** SIGKILL to unshare, and so to the whole namespace, this long after the start. */
  timeoutMs: number;
}

/** Starts `argv` as PID 1 of a fresh PID namespace: unshare's process, which resolves, never rejects. */
export function startInPidNamespace(argv: readonly string[], options: StartOptions) {
  const [file, ...args] = [...(options.prefix ?? []), ...inPidNamespace(argv, options.namespace)];
  return execa(file, args, {
    reject: false,
    env: options.env,
    input: options.input,
    stdin: options.input === undefined ? 'ignore' : undefined,
    timeout: options.timeoutMs,
    killSignal: 'SIGKILL',
  });
}

export interface FindOptions {
  timeoutMs?: number;
  everyMs?: number;
  /** Whether PID 1 is far enough along to hand over (e.g. past its exec); by default, as soon as it is there. */
  ready?: (pid1: number) => boolean;
}

/**
 * PID 1's host pid, once it is there and ready; 0 when unshare exited before PID 1 was seen.
 * unshare reports no pid, so its children are looked up, but the wait ends on an event either
 * way: unshare's exit wakes it at once, as a PID 1 over at once may be gone before the first look
 * (once seen, it is handed over even if gone since). Throws after timeoutMs.
 */
export async function findPid1(unsharePid: number, exited: Promise<unknown>,
  options: FindOptions = {}): Promise<number> {
  const { timeoutMs = 10_000, everyMs = 10, ready } = options;
  let over = false;
  const end = exited.then(() => (over = true), () => (over = true));
  const deadline = Date.now() + timeoutMs;
  let seen = 0;
  for (;;) {
    const ended = over;  // read before the look: a PID 1 there before unshare's exit is seen by it
    seen = childrenOf(unsharePid)[0] ?? seen;
    if (seen && (ready === undefined || ready(seen))) return seen;
    if (ended) return seen;
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for PID 1 under unshare (${unsharePid})`);
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([end, new Promise((resolve) => (timer = setTimeout(resolve, everyMs)))]);
    clearTimeout(timer);
  }
}

/** Host pids of the direct children of pid, over all its threads. */
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

export function namespacePid(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('NSpid:'));
    return Number(line?.trim().split(/\s+/).at(-1) ?? pid);
  } catch {
    return pid;
  }
}

/** Every process of the namespace whose PID 1 has host pid `pid1`. */
export function namespaceProcesses(pid1: number): ProcessInfo[] {
  const self = readProcess(pid1);
  return self ? [self, ...descendantsOf(pid1, listProcesses())] : [];
}

/** PF_EXITING in /proc/PID/stat's flags (field 9). */
const PF_EXITING = 0x4;

/**
 * Whether PID 1 has begun to exit (or is gone): the kernel is then tearing the namespace down,
 * killing and reaping everything in it, and what /proc shows is no longer the init's doing.
 */
export function pid1Exiting(pid1: number): boolean {
  try {
    const stat = parseStat(readFileSync(`/proc/${pid1}/stat`, 'latin1'));
    const state = stat?.field(3);
    return !stat || state === 'Z' || state === 'X' || (Number(stat.field(9)) & PF_EXITING) !== 0;
  } catch {
    return true;
  }
}
