// Everything that reports the snapshot outside sexton: the stats file, `sexton status`'s
// socket, Prometheus. They start once the child is well on its way (loading net and http must
// not delay its start, and a command over within moments never needed them), and need no
// thread: no name lookups, no asynchronous fs.
import type { Logger } from '../../platform/log';
import type { Native } from '../../platform/native';
import type { Options } from '../../config/options';
import type { StatsSnapshot } from '../stats';
import { startMetricsServer } from './prometheus';
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
  ) {
    // Built now (no I/O) so that the final write happens even for a command over in moments.
    if (options.statsFile) this.statsFile = new StatsFile(options.statsFile, snapshot, log);
  }

  /** changeKey: cheap to compute; the stats file is rewritten when it changes. */
  async start(changeKey: () => string): Promise<void> {
    const { options, snapshot, log, native } = this;
    this.statsFile?.watch(changeKey);
    if (options.metrics) startMetricsServer(options.metrics, snapshot, log);
    if (options.statusSocket.length > 0) this.statusSocket = await startStatusSocket(options.statusSocket, snapshot, log, native);
  }

  /** The final stats; the socket file removed. */
  close(): void {
    this.statsFile?.write();
    this.statusSocket?.close();
  }
}
