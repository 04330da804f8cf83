// Each step of the stop sequence on its own: one that throws (a /proc read out of descriptors, a
// log write) is reported in one line and the steps after it still run; a repeated stop signal
// carries out again those that failed. A stop signal is never used up by a failure.
import type { Action } from './lifecycle';
import type { Logger } from '../platform/log';
import { internalErrorText } from './internal-error';

export class StopSteps {
  private failed: Action[] = [];

  constructor(private readonly act: (action: Action) => void, private readonly log: Logger) {}

  /** How many steps wait for another chance. */
  get pending(): number {
    return this.failed.length;
  }

  run(action: Action): void {
    try {
      this.act(action);
    } catch (error) {
      // A log line or a retry is not worth another try; every other step is.
      if (action.kind !== 'log' && action.kind !== 'retry-failed-steps') this.failed.push(action);
      try {
        this.log.error(
          `stop sequence: ${action.kind} failed (the next steps go ` +
            `on): ${internalErrorText(error, this.log.verbosity)}`);
      } catch {
        // the line is lost; the sequence is not
      }
    }
  }

  /** Runs the failed steps again, in their order; a step that fails again waits for the next call. */
  retry(announce: (kinds: string) => void): void {
    const failed = this.failed.splice(0);
    if (failed.length === 0) return;
    announce(failed.map((a) => a.kind).join(', '));
    for (const action of failed) this.run(action);
  }
}
