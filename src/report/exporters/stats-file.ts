// --stats-file: the snapshot as JSON, replaced atomically (write, then rename) so a reader never
// sees half a file; rewritten when the counters move, at most once a second, and at exit.
import { renameSync, writeFileSync } from 'node:fs';
import { escapeLine, quote } from '../../config/quote';
import type { Logger } from '../../platform/log';
import type { SnapshotCache } from '../snapshot-cache';
import type { StatsSnapshot } from '../stats';

const DEBOUNCE_MS = 1000;

export class StatsFile {
  private lastKey = '';
  private failed = false;

  constructor(private readonly path: string, private readonly snapshots: SnapshotCache<StatsSnapshot>,
    private readonly log: Logger) {}

  /**
   * Polls once a second: the cheap counters, and the zombies of the shared snapshot (a /proc
   * scan, shared with every other reader). Only a change costs a write.
   */
  watch(changeKey: () => string): void {
    setInterval(() => {
      try {
        const key = `${changeKey()} ${this.snapshots.get().zombieCount}`;
        // The shared snapshot may be older than the counters just read (a status query took it
        // a moment before a HUP): a change is written from a new one, at most once a second.
        if (key !== this.lastKey) this.write(key, this.snapshots.fresh());
      } catch (error) {
        this.fail(error as Error);
      }
    }, DEBOUNCE_MS).unref();
  }

  /** Writes the snapshot given, or a fresh one (the final write, at exit). */
  write(key = '', snapshot?: StatsSnapshot): void {
    this.lastKey = key;
    const temp = `${this.path}.${process.pid}.tmp`;
    try {
      writeFileSync(temp, `${JSON.stringify(snapshot ?? this.snapshots.fresh(), null, 2)}\n`);
      renameSync(temp, this.path);
      this.failed = false;
    } catch (error) {
      this.fail(error as Error);
    }
  }

  /** One line per run of failures (EMFILE under a flood of clients, a full disk), never a stack. */
  private fail(error: Error): void {
    // The path is the user's and the error's message may echo it: both escaped, one line.
    if (!this.failed) this.log.error(`stats file ${quote(this.path)}: ${escapeLine(error.message, 200)}`);
    this.failed = true;
  }
}
