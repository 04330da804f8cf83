// --stats-file: the snapshot as JSON, replaced atomically (write, then rename) so a reader never
// sees half a file; rewritten when the counters move, at most once a second, and at exit.
import { renameSync, writeFileSync } from 'node:fs';
import type { Logger } from '../../platform/log';
import type { StatsSnapshot } from '../stats';

const DEBOUNCE_MS = 1000;

export class StatsFile {
  private lastKey = '';
  private failed = false;

  constructor(private readonly path: string, private readonly snapshot: () => StatsSnapshot, private readonly log: Logger) {}

  /** Polls the cheap counters once a second; only a change costs a /proc scan and a write. */
  watch(changeKey: () => string): void {
    setInterval(() => {
      const key = changeKey();
      if (key !== this.lastKey) this.write(key);
    }, DEBOUNCE_MS).unref();
  }

  write(key = ''): void {
    this.lastKey = key;
    const temp = `${this.path}.${process.pid}.tmp`;
    try {
      writeFileSync(temp, `${JSON.stringify(this.snapshot(), null, 2)}\n`);
      renameSync(temp, this.path);
      this.failed = false;
    } catch (error) {
      if (!this.failed) this.log.error(`stats file ${this.path}: ${(error as Error).message}`);
      this.failed = true;
    }
  }
}
