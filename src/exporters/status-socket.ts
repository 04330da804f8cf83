// The Unix socket `sexton status` asks: connect, read one JSON snapshot, done.
// `net` is required only here, so a sexton without the socket never loads it.
import { chmodSync, statSync, unlinkSync } from 'node:fs';
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

function listenOn(path: string, server: Server): Promise<boolean> {
  return new Promise((resolve) => {
    const onError = () => resolve(false);
    server.once('error', onError);
    try {
      unlinkSync(path);  // a stale socket from an earlier run
    } catch {
      // none there
    }
    server.listen(path, () => {
      server.off('error', onError);
      resolve(true);
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
  server.on('error', (error) => log.error(`status socket: ${error.message}`));
  server.unref();
  for (const path of paths) {
    const previousUmask = process.umask(0o177);  // owner-only from the moment it exists
    const ok = await listenOn(path, server);
    process.umask(previousUmask);
    if (!ok) continue;
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
  log.warn(`status socket: could not listen on ${paths.join(' or ')}; 'sexton status' will not find this sexton`);
  return undefined;
}
