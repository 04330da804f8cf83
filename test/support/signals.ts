// Helpers for the signal tests: a child that reports every signal it gets, and sending signals
// one at a time (two signals of one kind sent before the child handles the first coalesce).
import { constants } from 'node:os';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { fixture, until } from './pid1';

export const SIG = constants.signals;
/** glibc's real-time range (sexton, dash and the kernel agree on it here). */
export const RTMIN = 34;
export const RTMAX = 64;

export const TRAP = fixture('signals-trap.sh');

/** argv of a child that prints "got N" for each signal number given; TERM makes it exit 3. */
export function trapChild(signals: number[]): string[] {
  return ['sh', TRAP, ...signals.map(String)];
}

/** The signal numbers of every "got N" line (of one label, if given), in arrival order. */
export function deliveries(stdout: string, label = ''): number[] {
  const line = new RegExp(`^${label ? `${label} ` : ''}got (\\d+)$`, 'gm');
  return [...stdout.matchAll(line)].map((m) => Number(m[1]));
}

const count = (list: number[], n: number) => list.filter((x) => x === n).length;

/**
 * Sends `signal` to `pid` and waits until the child has reported `expected` once more than
 * before: the next signal is sent only once this one has been handled.
 */
export async function sendAndAwait(
  pid: number,
  stdout: () => string,
  signal: number,
  expected = signal,
  { label = '', timeoutMs = 5000 } = {},
): Promise<void> {
  const before = count(deliveries(stdout(), label), expected);
  process.kill(pid, signal);
  await until(
    () => count(deliveries(stdout(), label), expected) > before,
    timeoutMs,
    `${label || 'child'} to get ${expected} after ${signal} was sent to pid ${pid}; stdout: ${JSON.stringify(stdout().slice(-300))}`,
  );
}


/** Inodes of the sockets pid holds open. */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/** Inodes of TCP sockets listening on `port`, from pid's view of the network (/proc/PID/net). */
function tcpListeners(pid: number, port: number): Set<string> {
  const inodes = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['tcp', 'tcp6']) {
    const lines = readFileSync(`/proc/${pid}/net/${table}`, 'utf8').trim().split('\n').slice(1);
    for (const line of lines) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const fields = line.trim().split(/\s+/);
      if (fields[1].endsWith(`:${hexPort}`) && fields[3] === '0A') inodes.add(fields[9]);
    }
  }
  return inodes;
}

/** Node's inspector port, which SIGUSR1 opens in a Node process that does not own SIGUSR1. */
export const INSPECTOR_PORT = 9229;

/**
 * Whether Node's inspector was opened in pid: it holds a socket listening on 9229, or it said so
 * on stderr (when the port is taken, Node prints that starting the inspector failed).
 */
export function inspectorOpened(pid: number, stderr: string): boolean {
  const mine = socketInodes(pid);
  const listening = [...tcpListeners(pid, INSPECTOR_PORT)].some((inode) => mine.has(inode));
  return listening || /Debugger listening|inspector/i.test(stderr);
}
