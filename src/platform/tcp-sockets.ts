// The addon's socket dump (native/tcp_sockets.cc) behind a typed boundary: the limit checked
// before the call, the flat rows of numbers decoded into sockets. Used by a drain (init/drain.ts).
import type { Native } from './native';

/** One TCP socket of sexton's network namespace (native/tcp_sockets.h). */
export interface TcpSocket {
  /** The kernel's TCP state: 1 established, 10 listening, ... */
  state: number;
  localPort: number;
  /** The kernel's id of the socket: a new connection has a new one. */
  cookie: number;
  /** Data bytes that arrived on it (tcpi_bytes_received), read by the app or not. */
  bytesReceived: number;
  /** For a listener: connections waiting to be accepted. */
  queued: number;
}

export const TCP_LISTEN = 10;
const TCP_SOCKET_FIELDS = 5;
export const TCP_SOCKET_LIMIT = 2 ** 20;

/** The namespace's TCP sockets (at most `limit`), or the errno of the dump. */
export function tcpSockets(native: Pick<Native, 'tcpSockets'>, limit: number): {
  sockets: TcpSocket[]; truncated: boolean } | number {
  if (!Number.isInteger(limit) || limit < 1 || limit > TCP_SOCKET_LIMIT) throw new TypeError(
    `tcpSockets: limit ${limit} is not a whole number from 1 to ${TCP_SOCKET_LIMIT}`);
  const result = native.tcpSockets(limit);
  if (typeof result === 'number') return result;
  const sockets: TcpSocket[] = [];
  const f = result.fields;
  for (let i = 0; i + TCP_SOCKET_FIELDS <= f.length; i += TCP_SOCKET_FIELDS) {
    sockets.push({ state: f[i], localPort: f[i + 1], cookie: f[i + 2], bytesReceived: f[i + 3], queued: f[i + 4] });
  }
  return { sockets, truncated: result.truncated };
}
