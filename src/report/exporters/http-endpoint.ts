// One bounded HTTP listener for sexton's routes (/metrics, /livez, /readyz): several options may
// name one address and share it. Bounded in connections, request size and time, so a slow or
// hostile client never holds PID 1's memory or descriptors for long; every refusal is a status.
// No interval timer (Node's connection checker is off): an idle sexton never wakes.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../platform/log';
import { countOwnConnections } from '../../platform/own-listeners';

export interface RouteAnswer {
  status: number;
  body: string;
  contentType?: string;
}

/** Path (query string removed) → its answer, computed per request. */
export type Routes = Map<string, () => RouteAnswer>;

/** How long one connection may stay open: a scrape takes milliseconds, Prometheus gives up at 10 s. */
export const CONNECTION_LIMIT_MS = 10_000;
/** Connections open at once; more are closed on arrival (a probe every second needs one). */
export const MAX_CONNECTIONS = 64;
/** The request line and headers together; more gets 431. A probe's are under 300 bytes. */
export const MAX_HEADER_BYTES = 8192;
/** An idle kept-alive connection is closed after this long. */
const KEEP_ALIVE_MS = 5000;
/** setInterval's largest delay (a larger one means 1 ms): Node's connection checker, never run. */
const NEVER_MS = 2 ** 31 - 1;

function plain(response: ServerResponse, status: number, body: string, contentType = 'text/plain; charset=utf-8', head = false): void {
  response.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
  response.end(head ? undefined : body);
}

function answer(routes: Routes, request: IncomingMessage, response: ServerResponse, log: Logger): void {
  response.on('error', () => undefined);
  // A body sexton would have to read: refused, and the connection closed after the answer.
  if (request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0) {
    response.shouldKeepAlive = false;
    return plain(response, 413, 'sexton reads no request body\n');
  }
  const route = routes.get((request.url ?? '').split('?')[0]);
  if (!route) return plain(response, 404, `sexton serves ${[...routes.keys()].join(' ')}\n`);
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('Allow', 'GET, HEAD');
    return plain(response, 405, 'GET or HEAD\n');
  }
  try {
    const { status, body, contentType } = route();
    plain(response, status, body, contentType, request.method === 'HEAD');
  } catch (error) {
    log.error(`http: ${(error as Error).message}`);
    plain(response, 500, 'internal error\n');
  }
}

/** Resolves once listening (or failed, which is logged): the caller's memory release waits for it. */
export function serveHttp(address: { host: string; port: number }, routes: Routes, log: Logger): Promise<void> {
  const http = require('node:http') as typeof import('node:http');
  const server = http.createServer({
    connectionsCheckingInterval: NEVER_MS, maxHeaderSize: MAX_HEADER_BYTES, keepAliveTimeout: KEEP_ALIVE_MS,
  }, (request, response) => answer(routes, request, response, log));
  server.maxConnections = MAX_CONNECTIONS;
  countOwnConnections(server);  // not the app's traffic, to a drain (init/drain.ts)
  server.on('connection', (socket) => {
    const limit = setTimeout(() => socket.destroy(), CONNECTION_LIMIT_MS).unref();
    socket.on('close', () => clearTimeout(limit));
  });
  // A parse error (garbage, oversized headers) gets its status from Node when it can be written.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  });
  const where = `${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}`;
  return new Promise((resolve) => {
    server.on('error', (error) => {
      log.error(`http: cannot serve ${[...routes.keys()].join(' ')} on ${where}: ${error.message}`);
      resolve();
    });
    server.listen(address.port, address.host, () => {
      log.info(`serving ${[...routes.keys()].join(' ')} on http://${where}`);
      resolve();
    });
    server.unref();
  });
}
