// A bounded HTTP/1.1 server for PID 1's read-only endpoints (metrics, health): a route table of
// path → handler, and limits on everything a client controls (connections, header bytes and
// count, a body, requests per connection, time). A client over a limit gets a short status line
// or a closed connection; sexton logs one rate-limited line, never a stack, and never runs out
// of descriptors for its stop sequence (docs/operations.md, "Listener limits").
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { EveryNowAndThen, type Logger } from '../../platform/log';
import { descriptorRoom } from '../../platform/procfs';
import type { OwnListeners } from '../../platform/own-listeners';

export interface HttpRequest {
  method: string;
  /** The path without its query string. */
  path: string;
  headers: IncomingHttpHeaders;
}

export interface HttpAnswer {
  status: number;
  headers?: Record<string, string>;
  body: string;
}

/** Exact paths; each handler runs synchronously and answers GET (HEAD gets the same, bodiless). */
export type Routes = Record<string, (request: HttpRequest) => HttpAnswer>;

export interface HttpLimits {
  /** Connections open at once; one more is accepted and closed at once. */
  connections: number;
  /** Bytes of the request line and headers together (Node's maxHeaderSize). */
  headerBytes: number;
  /** Header lines a request may have; one with more is answered 431. */
  headers: number;
  /** Requests one connection may make, pipelined or kept alive; the last is answered with Connection: close. */
  requestsPerConnection: number;
  /** How long a connection may stay open, whatever it does. */
  connectionMs: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  connections: 32,
  headerBytes: 8192,
  headers: 64,
  requestsPerConnection: 100,
  // A scrape takes milliseconds; Prometheus gives up at 10 s.
  connectionMs: 10_000,
};

/**
 * Descriptors no listener may take: the stop sequence's /proc scan and reads, the stats file's
 * write, a log line, with room to spare. A flood fills the cap, never these.
 */
export const STOP_RESERVE = 16;

/** Connections promised to the listeners started so far: each cap fits in what the others left. */
let promised = 0;

/**
 * The connection cap a listener gets: what it wants, within the descriptors left after the
 * reserve, the other listeners' caps, and the one a refusal takes for a moment; at least 1.
 */
export function connectionCap(wanted: number, room: number): number {
  return Math.max(1, Math.min(wanted, room - STOP_RESERVE - 1));
}

/** setInterval's largest delay (a larger one means 1 ms): Node's connection checker, never run. */
const NEVER_MS = 2 ** 31 - 1;
/** How often a kind of refusal may be logged (the first at once, then a count). */
const REFUSAL_LOG_MS = 60_000;
/** How long a connection answered 400/431 is read from (and dropped) before it is closed. */
const LINGER_MS = 1000;

export interface BoundedHttpServer {
  /** Connections open now. */
  connections(): number;
  close(): void;
}

/** The answer for one request, pure: routing, method and body checks. */
export function answerFor(routes: Routes, method: string, url: string, headers: IncomingHttpHeaders): HttpAnswer {
  const path = url.split('?', 1)[0];
  const handler = Object.prototype.hasOwnProperty.call(routes, path) ? routes[path] : undefined;
  if (!handler) return { status: 404, body: `not found; this server answers ${Object.keys(routes).join(', ')}\n` };
  if (method !== 'GET' && method !== 'HEAD') return { status: 405, headers: { Allow: 'GET, HEAD' },
    body: 'only GET and HEAD\n' };
  // Every route is a read: a body is nothing it wants, and reading one would be time and memory.
  if (hasBody(headers)) return { status: 413, body: 'a request body is not accepted\n' };
  return handler({ method, path, headers });
}

function hasBody(headers: IncomingHttpHeaders): boolean {
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length !== '0';
}

function send(response: ServerResponse, answer: HttpAnswer, head: boolean, close: boolean): void {
  const headers: Record<string, string | number> = {
    'Content-Type': 'text/plain; charset=utf-8', ...answer.headers, 'Content-Length': Buffer.byteLength(answer.body),
  };
  if (close) headers.Connection = 'close';
  response.writeHead(answer.status, headers);
  response.end(head ? undefined : answer.body);
}

/** What a client that broke the protocol or a limit reads before the connection closes. */
function clientErrorResponse(code: string | undefined): string {
  const [status, text] = code === 'HPE_HEADER_OVERFLOW' ? [431, 'Request Header Fields Too Large'] : [400,
    'Bad Request'];
  return `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`;
}

/**
 * Serves `routes` on address. name is what log lines call it ("metrics"). settled runs once:
 * with true when the port is bound, with false when it cannot be had (that is logged here).
 * Nothing here wakes an idle sexton: no interval timer, one timer per open connection.
 */
export function serveHttp(
  name: string,
  address: { host: string; port: number },
  routes: Routes,
  log: Logger,
  limits: HttpLimits,
  settled: (listening: boolean) => void,
  own?: OwnListeners,
): BoundedHttpServer {
  const http = require('node:http') as typeof import('node:http');
  // Not yet open: this server's listening socket, and the spare libuv keeps to refuse a client
  // when out of descriptors (its EMFILE trick).
  const cap = connectionCap(limits.connections, descriptorRoom() - promised - 2);
  promised += cap + 3;
  if (cap < limits.connections) log.warn(
    `${name}: RLIMIT_NOFILE leaves room for ${cap} connection(s) at once, not ${limits.connections}, ` +
      `with ${STOP_RESERVE} descriptors kept for the stop`);
  const refusals = new EveryNowAndThen(REFUSAL_LOG_MS);
  const refused = (kind: string, detail: string) => {
    const told = refusals.tell(kind);
    if (told !== undefined) log.warn(
      `${name}: ${detail}${told > 1 ? ` (${told} times since the last such line)` : ''}`);
  };
  // Node checks request and header timeouts on an interval timer that woke sexton every 30 s
  // with nobody connected: the per-connection timer below does that job instead.
  const server = http.createServer({
    connectionsCheckingInterval: NEVER_MS, maxHeaderSize: limits.headerBytes,
    requestTimeout: 0, headersTimeout: 0, keepAliveTimeout: 0,
  }, (request: IncomingMessage, response: ServerResponse) => {
    response.on('error', () => undefined);
    const socket = request.socket as Socket & { requests?: number };
    socket.requests = (socket.requests ?? 0) + 1;
    const last = socket.requests >= limits.requestsPerConnection;
    let answer: HttpAnswer;
    try {
      answer = request.rawHeaders.length / 2 > limits.headers
        ? { status: 431, body: `more than ${limits.headers} header lines\n` }
        : answerFor(routes, request.method ?? '', request.url ?? '', request.headers);
    } catch (error) {
      answer = { status: 500, body: 'internal error\n' };
      refused('handler', `a handler failed: ${(error as Error).message}`);
    }
    // A client error ends the connection: what follows on it is likely more of the same.
    send(response, answer, request.method === 'HEAD', last || (answer.status >= 400 && answer.status < 500));
  });
  server.maxConnections = cap;
  own?.count(server);  // not the app's traffic, to a drain (init/drain.ts)
  // Node's parser past maxHeadersCount: Node v20 kept the first lines and dropped the rest, Node 22
  // and later answer 431. The limit is sexton's, the same on every line: the parser keeps one line
  // more than it, so the handler above sees a request over it and refuses it wherever Node did not.
  server.maxHeadersCount = limits.headers + 1;
  // The answer to the last request says Connection: close, and the connection closes once it
  // is sent; requests pipelined past it in the same read get a bodiless 503 each (Node's).
  server.maxRequestsPerSocket = limits.requestsPerConnection;
  server.on('drop', () => refused('cap', `refused connections at the cap of ${cap} open at once`));
  server.on('connection', (socket: Socket) => {
    const deadline = setTimeout(() => socket.destroy(), limits.connectionMs).unref();
    socket.on('close', () => clearTimeout(deadline));
    socket.on('error', () => undefined);
  });
  const answeredBadRequest = new WeakSet<Socket>();
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (answeredBadRequest.has(socket)) return;  // the rest of a request already answered
    // A response already begun on this socket cannot take a second status line.
    const answering = (socket as Socket & { _httpMessage?: { headersSent: boolean } })._httpMessage?.headersSent;
    if (!socket.writable || answering || error.code === 'ECONNRESET') return void socket.destroy();
    // Closed with the client's bytes unread, the socket would send a reset, which can reach the
    // client before the answer (a 1 MiB request line lost its 431 under load). So: the answer,
    // a half-close, and what the client still sends read and dropped for LINGER_MS at most.
    answeredBadRequest.add(socket);
    socket.end(clientErrorResponse(error.code));
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  });
  let bound = false;
  server.on('error', (error: NodeJS.ErrnoException) => {
    // Before listening: the port is taken or not ours. After: accept failed (EMFILE, ENFILE),
    // and libuv has already closed the waiting connection; the next accept may succeed.
    if (bound) return refused(`accept ${error.code}`,
      `accept failed (${error.code}): the connection was closed unanswered`);
    log.error(`${name}: cannot serve on ${address.host}:${address.port}: ${error.message}`);
    settled(false);
  });
  server.listen(address.port, address.host, () => {
    bound = true;
    settled(true);
  });
  server.unref();
  return {
    connections: () => (server as unknown as { _connections: number })._connections,
    close: () => server.close(),
  };
}
