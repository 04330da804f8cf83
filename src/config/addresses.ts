// Where sexton's listeners may be reached: the syntax of an address option, and the status
// socket's default name. Both the init (which listens) and its tools (which connect) use them.
import { statSync } from 'node:fs';

/**
 * The default address: an abstract Unix socket, which needs no file (so it works on a read-only
 * root filesystem with no writable /run or /tmp), named after this PID namespace, so that
 * sextons sharing a network namespace (a pod's containers, CI jobs under `unshare`) each have
 * their own. `sexton status` computes the same name in its own PID namespace.
 */
export function defaultSocketPaths(): string[] {
  return [`@sexton-status.${pidNamespace()}`];
}

function pidNamespace(): string {
  try {
    return String(statSync('/proc/self/ns/pid').ino);
  } catch {
    return 'unknown';  // no /proc: every sexton here shares the name, and the peer check tells them apart
  }
}

/**
 * NOTIFY_SOCKET for --ready-when notify: abstract (no file, so a read-only root works), named
 * after the PID namespace and sexton's pid there. A pod's containers share a network namespace,
 * so a sibling container can send to it: the supervisor judges each sender.
 */
export function notifySocketAddress(): string {
  return `@sexton-notify.${pidNamespace()}.${process.pid}`;
}

/** HOST:PORT, [IPv6]:PORT or :PORT (every address); undefined when it is none of them. */
export function parseHostPort(text: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(text.trim());
  if (!m || Number(m[3]) > 65535) return undefined;
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port: Number(m[3]) };
}

/** Whether two listen addresses are one port (--health may share --metrics's). */
export function sameAddress(a: { host: string; port: number }, b: { host: string; port: number }): boolean {
  return a.host === b.host && a.port === b.port;
}
