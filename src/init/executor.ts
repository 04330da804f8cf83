// The lifecycle's actions carried out: signals, /proc scans, timers, log lines, and last the
// exit with its report. Each step on its own: one that throws (a /proc read out of descriptors,
// a log write) is reported in one line and the steps after it still run; a repeated stop signal
// carries out again those that failed. A stop signal is never used up by a failure. The status
// sexton leaves with is the main child's, as a shell reports it, after --remap-exit, and under
// --strict a failure when the child succeeded but its processes leaked.
import { constants } from '../platform/os-constants';
import type { Host } from '../platform/host';
import type { Logger } from '../platform/log';
import type { ProcessInfo, ZombieGroup } from '../platform/procfs';
import { signalName } from '../platform/signals';
import { EXIT } from '../config/exit-codes';
import type { Options } from '../config/options';
import type { Exporters } from '../report/exporters';
import { MainExit, summarize, toReapStats } from '../report/stats';
import type { TrafficDrain } from './drain';
import { internalErrorText } from './internal-error';
import type { Action, Lifecycle } from './lifecycle';
import type { Timers } from './loop';
import type { MemoryGuard } from './memory';
import type { ProcessTree } from './process-tree';

/** What --strict fails on: orphans sexton had to reap, zombies live parents held. */
export function leaks(orphansReaped: number, heldZombies: ZombieGroup[]): string[] {
  const out: string[] = [];
  if (orphansReaped > 0) out.push(`reaped ${orphansReaped} orphan(s) the child's processes left behind`);
  for (const g of heldZombies) out.push(`pid ${g.pid} (${g.command}) held ${g.zombies} zombie(s)`);
  return out;
}

/**
 * 128 + N for a signal (PID 1 cannot re-raise it on itself), else the code; remapped codes are
 * 0. `mainExit` undefined: the child outlived SIGKILL (state D) and sexton leaves without it.
 */
export function exitStatus(mainExit: MainExit | undefined, policy: Pick<Options, 'remapExit' | 'strict'>,
  leaked: string[]): { code: number; strictFailure: boolean } {
  const exit = mainExit ?? { exitCode: 0, signal: constants.signals.SIGKILL };
  const raw = exit.signal ? 128 + exit.signal : exit.exitCode;
  const code = policy.remapExit.has(raw) ? 0 : raw;
  const strictFailure = policy.strict && code === 0 && leaked.length > 0;
  return { code: strictFailure ? EXIT.strict : code, strictFailure };
}

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

/** The init's parts, made once by the supervisor: what the actions act on and the reports read. */
export interface InitParts {
  host: Host;
  options: Options;
  log: Logger;
  lifecycle: Lifecycle;
  tree: ProcessTree;
  memory: MemoryGuard;
  timers: Timers;
  exporters: Exporters;
  drain?: TrafficDrain;
  /** tini and dumb-init leave with their main child: the orphans they reaped are no news. */
  leavesWithMainChild: boolean;
}

export class Executor {
  /** The /proc scan of the input being answered: one per input at most. */
  private scan?: ProcessInfo[];
  private readonly steps: StopSteps;

  constructor(private readonly parts: InitParts) {
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
        const { mainPid } = lifecycle.state;
        const daemons = tree.terminate(tree.reparented(this.processes(), mainPid), mainPid);
        if (daemons.length > 0) log.info(
          `sending TERM to ${daemons.length} re-parented process(es): ${daemons.map((p) => p.pid).join(' ')}`);
        return;
      }
      case 'terminate-leftovers':
        return void tree.terminate(this.processes().filter((p) => p.state !== 'Z'), lifecycle.state.mainPid);
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
        return drain?.start(action.drain);
      case 'end-drain':
        return drain?.forwarded();
      case 'start-timer': {
        // The kill round repeats until the tree is empty; the others fire once. Only grace and drain keep sexton alive.
        const { timer, seconds } = action;
        return timers.start(timer, seconds * 1000, { repeat: timer === 'kill-repeat', keepAlive: timer === 'grace'
          || timer === 'drain' });
      }
      case 'cancel-timer':
        return void timers.cancel(action.timer);
      case 'finish':
        return this.finish();
    }
  }

  /** The end of the init's life, the main child's status passed on: the one way out once it ran. */
  private finish(): never {
    const { host: { native }, options, log, lifecycle, tree, exporters, drain } = this.parts;
    const { mainExit, survivorsKilled } = lifecycle.state;
    let { code } = exitStatus(mainExit, options, []);  // pure: known before anything can fail
    try {  // the counters, the report and the stats file may fail (out of descriptors); the exit may not
      const stats = toReapStats(native.stats());
      const leaked = leaks(stats.orphansReaped, tree.heldZombies);
      const status = exitStatus(mainExit, options, leaked);
      code = status.code;
      drain?.finish();
      if (status.strictFailure) log.error(`strict: ${leaked.join('; ')}`);
      // The final stats file first: whoever reads the exit line may read the file at once.
      exporters.close();
      const noteworthy = lifecycle.shuttingDown || survivorsKilled > 0 || (stats.orphansReaped > 0
        && !this.parts.leavesWithMainChild);
      const killed = survivorsKilled ? `; killed ${survivorsKilled} survivor(s)` : '';
      const line = `exiting with ${code}: ${summarize(stats)}${killed}`;
      (noteworthy ? log.warn : log.info).call(log, line, { exitCode: code, ...stats });
    } finally {
      this.parts.host.native.exit(code);
    }
  }

  /** The child could not be started: sexton leaves with exitCode, the stats file written. */
  failStart(message: string, exitCode: number): never {
    const { log, lifecycle, exporters } = this.parts;
    try {
      log.error(message);
      lifecycle.step({ kind: 'start-failed', exit: { exitCode, signal: 0 } });
      exporters.close();  // a CI job reads the stats file most when the command was broken
    } finally {
      this.parts.host.native.exit(exitCode);
    }
  }
}
