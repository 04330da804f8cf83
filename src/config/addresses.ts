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
  let namespace = 'unknown';
  try {
    namespace = String(statSync('/proc/self/ns/pid').ino);
  } catch {
    // no /proc: every sexton here shares the name, and the peer check tells them apart
  }
  return [`@sexton-status.${namespace}`];
}

/** HOST:PORT, [IPv6]:PORT or :PORT (every address); undefined when it is none of them. */
export function parseHostPort(text: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(text.trim());
  if (!m || Number(m[3]) > 65535) return undefined;
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port: Number(m[3]) };
}
