// Loopback HTTP for tests: a free port, and one GET on a fresh connection, as a kubelet's
// httpGet probe or a load balancer's check makes it.
import { request } from 'node:http';
import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** GET http://127.0.0.1:port/path (or another host): status code and body; rejects on no answer. */
export function httpGet(port: number, path: string, { host = '127.0.0.1', timeoutMs = 5000 } = {}): Promise<{ code: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path, agent: false, timeout: timeoutMs }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ code: res.statusCode as number, body }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer on ${path} within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** Waits until an HTTP server answers on 127.0.0.1:port (any status): a port that opens after another
 * listener, or after a delay, is waited for itself. */
export async function listening(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const req = request({ host: '127.0.0.1', port, path: '/', method: 'HEAD', agent: false }, (res) => {
        res.resume();
        resolve(true);
      });
      req.on('error', () => resolve(false));
      req.end();
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
