// The Unix socket `sexton status` asks: connect, read one JSON snapshot, done.
// `net` is required only here, so a sexton without the socket never loads it.
import { chmodSync, lstatSync, statSync, unlinkSync } from 'node:fs';
import type { Server } from 'node:net';
import type { Logger } from '../log';
import type { StatsSnapshot } from '../stats';

/** Where sexton listens by default, and where `sexton status` looks: /run, else the temp dir. */
export function defaultSocketPaths(): string[] {
  const uid = process.getuid?.() ?? 0;
  return ['/run/sexton.sock', `${process.env.TMPDIR || '/tmp'}/sexton-${uid}.sock`];
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
 * Clears the way for our socket: only a socket nobody answers on (left by a sexton that was
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

export async function startStatusSocket(
  paths: string[],
  snapshot: () => StatsSnapshot,
  log: Logger,
): Promise<StatusSocket | undefined> {
  const net = require('node:net') as typeof import('node:net');
  const server = net.createServer((socket) => {
    socket.on('error', () => undefined);  // a client that hangs up early is its own business
    try {
      socket.end(`${JSON.stringify(snapshot())}\n`);
    } catch (error) {
      socket.destroy();
      log.error(`status socket: ${(error as Error).message}`);
    }
  });
  server.unref();
  const failures: string[] = [];
  for (const path of paths) {
    if (!(await pathIsFree(path, log))) continue;
    // Connecting takes write permission on the file: under any usual umask only the owner has
    // it from the start, and the chmod below makes sure of it.
    const failure = await listenOn(path, server);
    if (failure) {
      failures.push(`${path}: ${failure}`);
      continue;
    }
    server.on('error', (error) => log.error(`status socket: ${error.message}`));
    chmodSync(path, 0o600);
    const inode = statSync(path).ino;
    log.debug(`status socket listening on ${path}`);
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
  const why = failures.length > 0 ? ` (${failures.join('; ')})` : '';
  log.warn(`status socket: no place to listen${why}; 'sexton status' will not find this sexton`);
  return undefined;
}
