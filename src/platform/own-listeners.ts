// sexton's own TCP listeners (metrics, health): their ports, and the connections they accepted.
// A drain waiting for the app's traffic to stop must not count them: a probe every second would
// keep the pod from ever going quiet. The exporters own one; the drain reads it.
import type { Server } from 'node:net';

export class OwnListeners {
  private readonly portSet = new Set<number>();
  private acceptedSoFar = 0;

  /** Counts what `server` accepts, from now on; its port once it listens. */
  count(server: Server): void {
    server.on('connection', () => this.acceptedSoFar++);
    // A connection over maxConnections is accepted by the kernel and closed by Node.
    server.on('drop', () => this.acceptedSoFar++);
    server.on('listening', () => {
      const address = server.address();
      if (address !== null && typeof address === 'object') this.portSet.add(address.port);
    });
  }

  /** The TCP ports sexton listens on itself. */
  get ports(): ReadonlySet<number> {
    return this.portSet;
  }

  /** Connections sexton's own listeners accepted so far. */
  get accepted(): number {
    return this.acceptedSoFar;
  }
}
