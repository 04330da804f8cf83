// Everything that reports the snapshot outside sexton: the stats file, `sexton status`'s
// socket, Prometheus, /livez and /readyz. The status socket opens at the spawn (cheap); the rest
// once the child is well on its way (loading http must not delay its start, and a command over
// within moments never needed them). None needs a thread: no name lookups, no asynchronous fs.
import type { Logger } from '../../platform/log';
import type { Native } from '../../platform/native';
import type { Options } from '../../config/options';
import type { StatsSnapshot } from '../stats';
import { sameAddress } from '../../config/addresses';
import { HealthState, healthRoutes } from './health';
import { Routes, serveHttp } from './http-endpoint';
import { metricsRoutes } from './prometheus';
import { StatsFile } from './stats-file';
import { startStatusSocket, StatusSocket } from './status-socket';

export class Exporters {
  private readonly statsFile?: StatsFile;
  private statusSocket?: StatusSocket;

  constructor(
    private readonly options: Options,
    private readonly snapshot: () => StatsSnapshot,
    private readonly log: Logger,
    private readonly native: Pick<Native, 'peerCredentials'>,
    private readonly health: () => HealthState,
  ) {
    // Built now (no I/O) so that the final write happens even for a command over in moments.
    if (options.statsFile) this.statsFile = new StatsFile(options.statsFile, snapshot, log);
  }

  /** changeKey: cheap to compute; the stats file is rewritten when it changes. */
  /** At the spawn: an abstract socket binds in ~0.5 ms, with no module to load. */
  async startStatusSocket(): Promise<void> {
    const { options, snapshot, log, native } = this;
    if (options.statusSocket.length > 0) this.statusSocket = await startStatusSocket(options.statusSocket, snapshot, log, native);
  }

  /** The stats file and HTTP listeners. changeKey: cheap to compute; the stats file is rewritten when it changes. */
  async start(changeKey: () => string): Promise<void> {
    this.statsFile?.watch(changeKey);
    await Promise.all(this.httpListeners().map(([address, routes]) => serveHttp(address, routes, this.log)));
  }

  /** One listener per address: --health on --metrics's address shares its port. */
  private httpListeners(): [{ host: string; port: number }, Routes][] {
    const { metrics, health } = this.options;
    const out: [{ host: string; port: number }, Routes][] = [];
    if (metrics) out.push([metrics, metricsRoutes(this.snapshot)]);
    if (health) {
      const shared = out.find(([address]) => sameAddress(address, health));
      if (shared) for (const [path, route] of healthRoutes(this.health)) shared[1].set(path, route);
      else out.push([health, healthRoutes(this.health)]);
    }
    return out;
  }

  /** The final stats; the socket file removed. */
  close(): void {
    this.statsFile?.write();
    this.statusSocket?.close();
  }
}
