// Loopback ports for the exporters a measurement starts.
import * as net from 'node:net';

/** A TCP port on 127.0.0.1 that nobody listens on right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
