// Everything that reports the snapshot outside sexton: the stats file, `sexton status`'s
// socket, Prometheus, /livez and /readyz. The status socket opens at the spawn (cheap); the rest
// once the child is well on its way (loading http must not delay its start, and a command over
// within moments never needed them). None needs a thread: no name lookups, no asynchronous fs.
import type { Logger } from '../../platform/log';
import type { Native } from '../../platform/native';
import type { Options } from '../../config/options';
import type { StatsSnapshot } from '../stats';
import { SnapshotCache } from '../snapshot-cache';
import { sameAddress } from '../../config/addresses';
import { HEALTH_HTTP_LIMITS, HealthState, healthRoutes } from './health';
import { DEFAULT_HTTP_LIMITS, HttpRequest, Routes, serveHttp } from './http-server';
import { metricsRoutes, renderMetrics } from './prometheus';
import { StatsFile } from './stats-file';
import { OwnListeners } from '../../platform/own-listeners';
import { startStatusSocket, StatusSocket } from './status-socket';

/** How old a shared snapshot may be when a reader gets it: one /proc scan a second at most. */
export const SNAPSHOT_INTERVAL_MS = 1000;

export class Exporters {
  private readonly statsFile?: StatsFile;
  private statusSocket?: StatusSocket;
  private readonly cache: SnapshotCache<StatsSnapshot>;
  /** What the HTTP listeners accepted: a drain leaves it out of the app's traffic. */
  readonly own = new OwnListeners();

  constructor(
    private readonly options: Options,
    snapshot: () => StatsSnapshot,
    private readonly log: Logger,
    private readonly native: Pick<Native, 'peerCredentials'>,
    /** Told of each answer to a client: what memory a burst of them left is given back after. */
    private readonly answered: () => void = () => undefined,
    private readonly health: () => HealthState = () => ({ live: true, ready: false, reason: 'no readiness given' }),
  ) {
    this.cache = new SnapshotCache(snapshot, SNAPSHOT_INTERVAL_MS);
    // Built now (no I/O) so that the final write happens even for a command over in moments.
    if (options.statsFile) this.statsFile = new StatsFile(options.statsFile, this.cache, log);
  }

  /** changeKey: cheap to compute (no /proc scan); the stats file is rewritten when it or the shared snapshot's zombies
   * change. */
  /** At the spawn: an abstract socket binds in ~0.5 ms, with no module to load. */
  async startStatusSocket(): Promise<void> {
    const { options, log, native } = this;
    if (options.statusSocket.length === 0) return;
    const text = this.cache.derived((s) => `${JSON.stringify(s)}\n`);
    // The shared snapshot may be a second old; readiness may not (`sexton status --ready`
    // must say "not ready" from the stop signal on): the text is remade when it has moved.
    const answer = () => {
      const cached = this.cache.get();
      const now = this.health();
      const moved = cached.health.ready !== now.ready || cached.health.reason !== now.reason;
      return moved ? `${JSON.stringify({ ...cached, health: { ...cached.health, ...now } })}\n` : text();
    };
    this.statusSocket = await startStatusSocket(options.statusSocket, this.counted(answer), log, native);
  }

  /** The stats file and HTTP listeners. changeKey: cheap to compute (no /proc scan); the stats file is rewritten when
   * it or the shared snapshot's zombies change. */
  async start(changeKey: () => string): Promise<void> {
    this.statsFile?.watch(changeKey);
    const listeners = this.httpListeners();
    await Promise.all(listeners.map(([name, address, routes]) => new Promise<void>((settled) => {
      const where = `http://${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}`;
      const health = '/readyz' in routes;
      const line = name === 'health' ? `health on ${where}/livez and /readyz`
        : `metrics on ${where}/metrics${health ? '; /livez and /readyz on the same port' : ''}`;
      // Settled either way (a port that cannot be had is logged there): the release after
      // listening goes on. A one-second fallback timer did this before; Node keeps an unref'd
      // timer's list after a clearTimeout, so it woke an idle sexton once, just after that
      // release, and faulted ~5 MiB of the node binary back in (RssFile 5.4 → 10.4 MiB).
      serveHttp(name, address, routes, this.log, health ? HEALTH_HTTP_LIMITS : DEFAULT_HTTP_LIMITS, (bound) => {
        if (bound) this.log.info(line);
        settled();
      }, this.own);
    })));
    // The last step of the start-up: after it, a socket or file that did not appear will not.
    const started = [...(this.statsFile ? ['stats file'] : []), ...listeners.map(([name]) => name)];
    this.log.debug(`exporters started: ${started.join(', ') || 'none'}`);
  }

  /** Something a snapshot reports has changed: the next caller gets a new snapshot, not the shared one. */
  changed(): void {
    this.cache.stale();
  }

  /** Tells of each answer (what memory a burst of them left is given back after). */
  private counted(text: () => string): () => string {
    return () => {
      this.answered();
      return text();
    };
  }

  /** One listener per address: --health on --metrics's address shares its port. */
  private httpListeners(): [string, { host: string; port: number }, Routes][] {
    const { metrics, health } = this.options;
    const out: [string, { host: string; port: number }, Routes][] = [];
    if (metrics) out.push(['metrics', metrics, metricsRoutes(this.cache.derived(renderMetrics))]);
    if (health) {
      const shared = out.find(([, address]) => sameAddress(address, health));
      if (shared) Object.assign(shared[2], healthRoutes(this.health));
      else out.push(['health', health, healthRoutes(this.health)]);
    }
    // Every route counts: a burst on /readyz leaves as much behind as one on /metrics.
    return out.map(([name, address, routes]) => [name, address, this.countedRoutes(routes)]);
  }

  private countedRoutes(routes: Routes): Routes {
    const counted = ([path, answer]: [string, Routes[string]]) =>
      [path, (request: HttpRequest) => (this.answered(), answer(request))];
    return Object.fromEntries(Object.entries(routes).map(counted));
  }

  /** The final stats; the socket file removed. */
  close(): void {
    this.statsFile?.write();
    this.statusSocket?.close();
  }
}
