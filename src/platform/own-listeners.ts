// sexton's own TCP listeners (metrics, health): their ports, and the connections they accepted.
// A drain waiting for the app's traffic to stop must not count them: a probe every second would
// keep the pod from ever going quiet.
import type { Server } from 'node:net';

const ports = new Set<number>();
let accepted = 0;

/** Counts what `server` accepts, from now on; its port once it listens. */
export function countOwnConnections(server: Server): void {
  server.on('connection', () => accepted++);
  // A connection over maxConnections is accepted by the kernel and closed by Node.
  server.on('drop', () => accepted++);
  server.on('listening', () => {
    const address = server.address();
    if (address !== null && typeof address === 'object') ports.add(address.port);
  });
}

/** The TCP ports sexton listens on itself. */
export function ownPorts(): ReadonlySet<number> {
  return ports;
}

/** Connections sexton's own listeners accepted so far. */
export function ownConnectionsAccepted(): number {
  return accepted;
}
