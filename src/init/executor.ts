// The lifecycle's actions carried out: signals, /proc scans, timers, log lines and the exit.
// Each step on its own: one that throws (a /proc read out of descriptors, a log write) is
// reported in one line and the steps after it still run; a repeated stop signal carries out
// again those that failed. A stop signal is never used up by a failure.
import { constants } from '../platform/os-constants';
import type { Logger } from '../platform/log';
import type { ProcessInfo } from '../platform/procfs';
import { signalName } from '../platform/signals';
import type { Options } from '../config/options';
import type { Exporters } from '../report/exporters';
import type { TrafficDrain } from './drain';
import { ExitParts, finish } from './exit-status';
import { internalErrorText } from './internal-error';
import type { Action, Timer } from './lifecycle';
import type { Timers } from './loop';
import type { ProcessTree } from './process-tree';

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

/** What the actions act on: the same parts the exit reads and closes. */
export interface ExecutorParts extends ExitParts {
  options: Options;
  tree: ProcessTree;
  timers: Timers;
  exporters: Exporters;
  drain?: TrafficDrain;
}

export class Executor {
  /** The /proc scan of the input being answered: one per input at most. */
  private scan?: ProcessInfo[];
  private readonly steps: StopSteps;

  constructor(private readonly parts: ExecutorParts) {
    this.steps = new StopSteps((action) => this.act(action), parts.log);
  }

  /** Carries out the lifecycle's answer to one input (scan: /proc, if the input read it already). */
  run(actions: Action[], scan?: ProcessInfo[]): void {
    this.scan = scan;
    for (const action of actions) this.steps.run(action);
  }

  private processes(): ProcessInfo[] {
    this.scan ??= this.parts.tree.processes();
    return this.scan;
  }

  private act(action: Action): void {
    const { options, log, host: { native }, lifecycle, tree, timers, exporters, drain } = this.parts;
    switch (action.kind) {
      case 'log':
        return log[action.level](action.message);
      case 'report-zombie-parents':
        return tree.blameZombieParents(this.processes(), log);
      case 'forward-stop-signal': {
        const as = options.rewrites.get(options.stopSignal) ?? options.stopSignal;
        if (as > 0) native.signalMainChild(as);
        return;
      }
      case 'terminate-daemons': {
        const daemons = tree.reparented(this.processes(), lifecycle.state.mainPid);
        if (daemons.length === 0) return;
        log.info(`sending TERM to ${daemons.length} re-parented process(es): ${daemons.map((p) => p.pid).join(' ')}`);
        return tree.terminate(daemons);
      }
      case 'terminate-leftovers':
        return tree.terminate(this.processes().filter((p) => p.state !== 'Z'));
      case 'terminate-unseen':
        return void native.signalEveryProcess(constants.signals.SIGTERM);
      case 'kill-survivors':
        try {
          lifecycle.step({ kind: 'survivors-killed', count: tree.reportSurvivors(log) });
        } finally {
          tree.killAll();  // the kill never waits on the report
        }
        return;
      case 'retry-failed-steps':
        this.scan = undefined;  // read /proc afresh: descriptors may be back
        return this.steps.retry((kinds) => log.warn(
          `received ${signalName(options.stopSignal)} again: retrying ${kinds}`));
      case 'report-unkillable':
        tree.reportUnkillable(log);
        return exporters.changed();  // a scrape in the second before the exit must name them
      case 'watch-traffic':
        return drain?.start();
      case 'end-drain':
        return drain?.forwarded(action.by);
      case 'start-timer':
        return startTimer(timers, action.timer, action.seconds);
      case 'cancel-timer':
        return timers.cancel(action.timer);
      case 'finish':
        return finish(this.parts);
    }
  }
}

/** The kill round repeats until the tree is empty; the others fire once. Only grace and drain keep sexton alive. */
function startTimer(timers: Timers, timer: Timer, seconds: number): void {
  timers.start(timer, seconds * 1000, { repeat: timer === 'kill-repeat', keepAlive: timer === 'grace'
    || timer === 'drain' });
}
