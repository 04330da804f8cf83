// Everything that reports the snapshot outside sexton: the stats file, `sexton status`'s
// socket, Prometheus. They start once the child is well on its way (loading net and http must
// not delay its start, and a command over within moments never needed them), and need no
// thread: no name lookups, no asynchronous fs.
import type { Logger } from '../../platform/log';
import type { Native } from '../../platform/native';
import type { Options } from '../../config/options';
import type { StatsSnapshot } from '../stats';
import { SnapshotCache } from '../snapshot-cache';
import { renderMetrics, startMetricsServer } from './prometheus';
import { StatsFile } from './stats-file';
import { startStatusSocket, StatusSocket } from './status-socket';

/** How old a shared snapshot may be when a reader gets it: one /proc scan a second at most. */
export const SNAPSHOT_INTERVAL_MS = 1000;

export class Exporters {
  private readonly statsFile?: StatsFile;
  private statusSocket?: StatusSocket;
  private readonly cache: SnapshotCache<StatsSnapshot>;

  constructor(
    private readonly options: Options,
    snapshot: () => StatsSnapshot,
    private readonly log: Logger,
    private readonly native: Pick<Native, 'peerCredentials'>,
    /** Told of each answer to a client: what memory a burst of them left is given back after. */
    private readonly answered: () => void = () => undefined,
  ) {
    this.cache = new SnapshotCache(snapshot, SNAPSHOT_INTERVAL_MS);
    // Built now (no I/O) so that the final write happens even for a command over in moments.
    if (options.statsFile) this.statsFile = new StatsFile(options.statsFile, this.cache, log);
  }

  /** changeKey: cheap to compute (no /proc scan); the stats file is rewritten when it or the shared snapshot's zombies change. */
  async start(changeKey: () => string): Promise<void> {
    const { options, cache, log, native } = this;
    this.statsFile?.watch(changeKey);
    const counted = (text: () => string) => () => {
      this.answered();
      return text();
    };
    if (options.statusSocket.length > 0) {
      const json = counted(cache.derived((s) => `${JSON.stringify(s)}\n`));
      this.statusSocket = await startStatusSocket(options.statusSocket, json, log, native);
    }
    // Last: its cap of connections is what the descriptors left allow (http-server.ts).
    if (options.metrics) startMetricsServer(options.metrics, counted(cache.derived(renderMetrics)), log);
  }

  /** The final stats; the socket file removed. */
  close(): void {
    this.statsFile?.write();
    this.statusSocket?.close();
  }
}
