// The Unix socket `sexton status` asks: connect, read one JSON snapshot, done.
// `net` is required only here, so a sexton without the socket never loads it. Nothing here
// uses libuv's thread pool: binding and accepting Unix sockets are plain syscalls.
import { chmodSync, lstatSync, statSync, unlinkSync } from 'node:fs';
import type { Server, Socket } from 'node:net';
import type { Logger } from '../log';
import type { Native } from '../native';
import type { StatsSnapshot } from '../stats';

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
export function refusalFor(socket: Socket, native: Pick<Native, 'peerCredentials'>, ownUid = process.getuid?.() ?? 0): string | undefined {
  const peer = native.peerCredentials(socketFd(socket));
  if (typeof peer === 'number') return `cannot tell who is asking (SO_PEERCRED failed, errno ${peer})`;
  if (peer.uid === 0 || peer.uid === ownUid) return undefined;
  return `uid ${peer.uid} may not ask: only root and sexton's own uid ${ownUid} may`;
}

export interface StatusSocket {
  path: string;
  /** Removes the socket file, unless another sexton has taken the path since. */
  close(): void;
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

function listenOn(path: string, server: Server): Promise<string | undefined> {
  return new Promise((resolve) => {
    const onError = (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message);
    server.once('error', onError);
    server.listen(path, () => {
      server.off('error', onError);
      resolve(undefined);
    });
  });
}

/** A socket file, owner-only, removed at exit if it is still ours. */
async function listenOnFile(path: string, server: Server, log: Logger): Promise<StatusSocket | string | undefined> {
  if (!(await pathIsFree(path, log))) return undefined;
  // Connecting takes write permission on the file: under any usual umask only the owner has
  // it from the start, and the chmod below makes sure of it.
  const failure = await listenOn(path, server);
  if (failure) return failure;
  chmodSync(path, 0o600);
  const inode = statSync(path).ino;
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
  snapshot: () => StatsSnapshot,
  log: Logger,
  native: Pick<Native, 'peerCredentials'>,
): Promise<StatusSocket | undefined> {
  const net = require('node:net') as typeof import('node:net');
  const server = net.createServer((socket) => {
    socket.on('error', () => undefined);  // a client that hangs up early is its own business
    try {
      const refused = refusalFor(socket, native);
      if (refused) log.debug(`status socket: refused a caller: ${refused}`);
      socket.end(`${JSON.stringify(refused ? ({ refused } satisfies Refusal) : snapshot())}\n`);
    } catch (error) {
      socket.destroy();
      log.error(`status socket: ${(error as Error).message}`);
    }
  });
  server.unref();
  const failures: string[] = [];
  for (const path of paths) {
    const abstract = path.startsWith('@');
    const result = abstract ? await listenOn(socketAddress(path), server) : await listenOnFile(path, server, log);
    if (result === undefined && !abstract) continue;  // the file is not ours to replace
    if (typeof result === 'string') {
      failures.push(`${path}: ${result}`);
      continue;
    }
    server.on('error', (error) => log.error(`status socket: ${error.message}`));
    log.debug(`status socket listening on ${path}`);
    return result ?? { path, close: () => server.close() };
  }
  const why = failures.length > 0 ? ` (${failures.join('; ')})` : '';
  log.warn(`status socket: no place to listen${why}; 'sexton status' will not find this sexton`);
  return undefined;
}
