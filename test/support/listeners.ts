// Raw clients for the listener fuzz (test/reports/listeners.test.ts): bytes on a real loopback or Unix
// socket, what came back, and who closed the connection when; floods of held connections;
// the descriptors a process holds.
import { readdirSync, statSync } from 'node:fs';
import * as net from 'node:net';

export type Target = { port: number } | { path: string };

function connect(target: Target): net.Socket {
  return 'port' in target ? net.connect(target.port, '127.0.0.1') : net.connect(target.path);
}

export interface Exchange {
  /** Everything the server sent, as latin1. */
  received: string;
  /** ms from connect to the close; undefined if still open at the timeout. */
  closedAfterMs?: number;
  /** The server reset the connection (or refused it). */
  reset: boolean;
}

/**
 * Connects, writes each chunk (waiting gapMs between them, while the socket is open), and
 * reads until the server closes or timeoutMs passes.
 */
export function exchange(target: Target, chunks: (string | Buffer)[], { gapMs = 0, timeoutMs = 5000 } = {}): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = connect(target);
    let received = '';
    let reset = false;
    let opened = Date.now();
    let open = true;
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ received, reset });
    }, timeoutMs);
    socket.on('connect', async () => {
      opened = Date.now();
      for (const chunk of chunks) {
        if (!open) return;
        socket.write(chunk);
        if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
      }
    });
    socket.on('data', (data) => (received += data.toString('latin1')));
    socket.on('error', () => (reset = true));
    socket.on('close', () => {
      open = false;
      clearTimeout(timer);
      resolve({ received, reset, closedAfterMs: Date.now() - opened });
    });
  });
}

/** Status codes of the HTTP responses in text, in order. */
export function statusCodes(text: string): number[] {
  return [...text.matchAll(/^HTTP\/1\.1 (\d{3}) /gm)].map((m) => Number(m[1]));
}

export interface Flood {
  /** Connections the server has closed so far. */
  closedByServer(): number;
  /** Connections that reached the connected state. */
  connected(): number;
  end(): void;
}

/** n connections opened and held (writing nothing), as fast as the client can make them. */
export async function flood(target: Target, n: number): Promise<Flood> {
  const sockets: net.Socket[] = [];
  let closed = 0;
  let connected = 0;
  for (let i = 0; i < n; i++) {
    const socket = connect(target);
    socket.on('connect', () => connected++);
    socket.on('error', () => undefined);
    socket.on('close', () => closed++);
    socket.on('data', () => undefined);
    sockets.push(socket);
    if (i % 100 === 99) await new Promise((r) => setTimeout(r, 5));
  }
  return {
    closedByServer: () => closed,
    connected: () => connected,
    end: () => sockets.forEach((s) => s.destroy()),
  };
}

/** The file descriptors pid holds now. */
export const openFds = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length;

/** The abstract status socket sexton listens on by default: named after its PID namespace. */
export const defaultStatusSocket = (pid1: number): string => `\0sexton-status.${statSync(`/proc/${pid1}/ns/pid`).ino}`;

/** Lines of a stack trace in text: what sexton must never log. */
export const stackLines = (text: string): string[] => text.split('\n').filter((l) => /^\s+at /.test(l));
