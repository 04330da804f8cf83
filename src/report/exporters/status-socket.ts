// The Unix socket `sexton status` asks: connect, read one JSON snapshot, done.
// The init listens on libuv's pipe handle directly, not through `net`: net and the stream
// modules it loads cost PID 1 0.7 MiB of anonymous memory for as long as it runs. Nothing here
// uses libuv's thread pool: binding and accepting Unix sockets are plain syscalls.
import { chmodSync, lstatSync, statSync, unlinkSync, writeSync } from 'node:fs';
import type { Socket } from 'node:net';
import { EveryNowAndThen, type Logger } from '../../platform/log';
import type { Native } from '../../platform/native';
import { nodeBinding } from '../../platform/node-binding';
import { errnoName } from '../../platform/os-constants';

/** How often a kind of failure may be logged under a flood (the first at once). */
const FAILURE_LOG_MS = 60_000;

/** '@name' is an abstract socket (Linux): Node names those with a leading NUL. */
export function socketAddress(text: string): string {
  return text.startsWith('@') ? `\0${text.slice(1)}` : text;
}

/** What a refused caller reads: one line of JSON, `{"refused": "..."}`. */
export interface Refusal {
  refused: string;
}

/** The fd of a connected net.Socket: Node keeps it on the handle, and exposes no SO_PEERCRED. */
export function socketFd(socket: Socket): number {
  return (socket as unknown as { _handle?: { fd?: number } })._handle?.fd ?? -1;
}

/**
 * Who may ask: root, or sexton's own uid. The snapshot names processes and their command lines,
 * and an abstract socket has no file permissions: anyone in the network namespace can connect.
 */
export function refusalFor(fd: number, native: Pick<Native, 'peerCredentials'>, ownUid = process.getuid?.()
  ?? 0): string | undefined {
  const peer = native.peerCredentials(fd);
  if (typeof peer === 'number') return `cannot tell who is asking (SO_PEERCRED failed, errno ${peer})`;
  if (peer.uid === 0 || peer.uid === ownUid) return undefined;
  return `uid ${peer.uid} may not ask: only root and sexton's own uid ${ownUid} may`;
}

export interface StatusSocket {
  path: string;
  /** Removes the socket file, unless another sexton has taken the path since. */
  close(): void;
}

/** libuv's pipe handle as Node's internal binding has it (what net.Server wraps). */
interface PipeHandle {
  readonly fd: number;
  /** 0 or -errno, as are listen's. */
  bind(path: string): number;
  listen(backlog: number): number;
  onconnection: ((status: number, client?: PipeHandle) => void) | null;
  unref(): void;
  close(): void;
}

function pipeServer(): PipeHandle {
  type PipeBinding = { Pipe: new (type: number) => PipeHandle; constants: { SERVER: number } };
  const binding = nodeBinding<PipeBinding>('pipe_wrap');
  if (!binding) throw new Error("no binding 'pipe_wrap'");
  return new binding.Pipe(binding.constants.SERVER);
}

/**
 * The whole answer, written on the accepted socket (non-blocking). A snapshot fits the socket's
 * buffer many times over; one that does not is cut, and the caller sees invalid JSON.
 */
function answer(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at);
}

/** Whether a live process answers on the socket at path. */
function answers(path: string): Promise<boolean> {
  const net = require('node:net') as typeof import('node:net');
  return new Promise((resolve) => {
    const probe = net.createConnection(path, () => {
      probe.destroy();
      resolve(true);
    });
    probe.on('error', () => resolve(false));
  });
}

/**
 * Clears the way for a socket file: only a socket nobody answers on (left by a sexton that was
 * killed) is removed. A regular file, or a live sexton's socket, stays where it is.
 */
async function pathIsFree(path: string, log: Logger): Promise<boolean> {
  let stats;
  try {
    stats = lstatSync(path);
  } catch {
    return true;
  }
  if (!stats.isSocket()) {
    log.warn(`status socket: ${path} exists and is not a socket; leaving it alone`);
    return false;
  }
  if (await answers(path)) {
    log.warn(`status socket: another process already answers on ${path}`);
    return false;
  }
  unlinkSync(path);
  return true;
}

/** undefined once listening, else the errno's name. */
function listenOn(path: string, server: PipeHandle): string | undefined {
  const status = server.bind(path) || server.listen(511);
  return status === 0 ? undefined : errnoName(-status);
}

/** A socket file, owner-only, removed at exit if it is still ours. */
async function listenOnFile(path: string, server: PipeHandle, log: Logger): Promise<StatusSocket | string | undefined> {
  if (!(await pathIsFree(path, log))) return undefined;
  // Connecting takes write permission on the file: under any usual umask only the owner has
  // it from the start, and the chmod below makes sure of it.
  const failure = listenOn(path, server);
  if (failure) return failure;
  let inode: number;
  try {
    chmodSync(path, 0o600);
    inode = statSync(path).ino;
  } catch (error) {
    // Checked at start (boot/usable-paths.ts), but the directory may change under sexton.
    server.close();
    return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  }
  return {
    path,
    close() {
      try {
        if (statSync(path).ino === inode) unlinkSync(path);
      } catch {
        // already gone
      }
    },
  };
}

export async function startStatusSocket(
  paths: string[],
  snapshotJson: () => string,
  log: Logger,
  native: Pick<Native, 'peerCredentials'>,
): Promise<StatusSocket | undefined> {
  let server: PipeHandle;
  try {
    server = pipeServer();
  } catch (error) {
    // An internal binding: a later Node may not have it. The init goes on without the socket.
    log.warn(`status socket: this Node has no pipe handle to listen on (${(error as Error).message}); 'sexton ` +
      `status' will not find this sexton`);
    return undefined;
  }
  // A flood repeats these lines: one now and then, with a count (log.ts).
  const repeated = new EveryNowAndThen(FAILURE_LOG_MS);
  const failed = (kind: string, line: string) => {
    const count = repeated.tell(kind);
    if (count !== undefined) log.error(
      `status socket: ${line}${count > 1 ? ` (${count} times since the last such line)` : ''}`);
  };
  server.onconnection = (status, client) => {
    if (status !== 0 || !client) {
      // libuv has closed the waiting connection (EMFILE: with its spare descriptor).
      failed(`accept ${status}`, `accept failed (${errnoName(-status)}): the caller was closed unanswered`);
      return;
    }
    try {
      const refused = refusalFor(client.fd, native);
      if (refused) log.debug(`status socket: refused a caller: ${refused}`);
      answer(client.fd, refused ? `${JSON.stringify({ refused } satisfies Refusal)}\n` : snapshotJson());
    } catch (error) {
      // A client that hangs up early (EPIPE) or never reads (EAGAIN) is its own business.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EPIPE' && code !== 'EAGAIN' && code !== 'ECONNRESET') failed(`answer ${code}`,
        (error as Error).message);
    } finally {
      client.close();
    }
  };
  server.unref();
  const failures: string[] = [];
  for (const path of paths) {
    const abstract = path.startsWith('@');
    const result = abstract ? listenOn(socketAddress(path), server) : await listenOnFile(path, server, log);
    if (result === undefined && !abstract) continue;  // the file is not ours to replace
    if (typeof result === 'string') {
      failures.push(`${path}: ${result}`);
      continue;
    }
    log.debug(`status socket listening on ${path}`);
    return result ?? { path, close: () => server.close() };
  }
  const why = failures.length > 0 ? ` (${failures.join('; ')})` : '';
  log.warn(`status socket: no place to listen${why}; 'sexton status' will not find this sexton`);
  return undefined;
}
