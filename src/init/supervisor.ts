// The supervisor: starts the main child and carries out the stop sequence that lifecycle.ts
// decides. It turns native events into the lifecycle's inputs and its actions into signals,
// timers, log lines and the exit.
import { constants, errnoName } from '../platform/os-constants';
import { Action, Lifecycle, Timer } from './lifecycle';
import { commandCandidates, execFailure, rawArguments } from './command';
import type { Logger } from '../platform/log';
import { MemoryGuard } from './memory';
import { Native, Notice, ReapEvent, StartError } from '../platform/native';
import { EXIT } from '../config/exit-codes';
import type { Options } from '../config/options';
import { ProcessTree } from './process-tree';
import { readPid1Name, stopPathWarnings } from './stop-path';
import { procShowsOwnNamespace, ProcessInfo } from '../platform/procfs';
import { quote } from '../config/quote';
import { applySignalPolicy, listenOnlyForPolicy, logSignalHandled } from './signal-policy';
import { signalName } from '../platform/signals';
import { MainExit, ReapStats, summarize, toReapStats } from '../report/stats';
import { exitStatus, leaks } from './exit-status';
import { Exporters } from '../report/exporters';
import type { SupervisorHooks } from './supervisor-hooks';
import { internalErrorText } from './internal-error';
import { setStopDeadline } from './stop-deadline';
import { StopSteps } from './stop-steps';
import { TrafficDrain } from './drain';
import { Readiness } from './readiness';
import { Notifications } from './notifications';
import { SnapshotSource } from './snapshot-source';

const { SIGKILL } = constants.signals;
/**
 * How long after the child's start metrics, /livez, /readyz and the stats file come up: loading
 * node:http costs PID 1 ~17 ms of CPU (measured), which a command over within moments never needs.
 */
const EXPORTERS_DELAY_MS = 100;

export class Supervisor {
  private readonly lifecycle: Lifecycle;
  private mainPid = 0;
  private mainExit?: MainExit;
  private readonly timers = new Map<Timer, NodeJS.Timeout>();
  /** The /proc scan of the step being carried out: one per step at most. */
  private scan?: ProcessInfo[];
  /** Stop signals acted on so far; the native counter says how many arrived. */
  private stopSignalsHandled = 0;
  private survivorsKilled = 0;
  private readonly steps: StopSteps;
  private readonly isInit = process.pid === 1;
  /** Whether /proc shows sexton's own PID namespace: if not, nothing is scanned or named. */
  private readonly procTrusted = procShowsOwnNamespace();
  private readonly tree: ProcessTree;
  private readonly memory: MemoryGuard;
  private readonly exporters: Exporters;
  /** With --drain-quiet: watches the traffic during a drain. */
  private readonly drain?: TrafficDrain;
  private readonly readiness: Readiness;
  private readonly notifications: Notifications;

  constructor(
    private readonly options: Options,
    private readonly log: Logger,
    private readonly native: Native,
    private readonly hooks: SupervisorHooks = {},
  ) {
    this.tree = new ProcessTree(native, this.isInit, this.procTrusted);
    this.lifecycle = new Lifecycle({
      drainDelay: options.drainDelay, drainQuiet: options.drainQuiet, grace: options.grace, stopSignalName: signalName(options.stopSignal), isInit: this.isInit,
    });
    this.memory = new MemoryGuard(native, log, options.childOomScoreAdj);
    // The handler's counter, read by every /readyz: readiness drops the instant the stop signal
    // arrives, before JS hears of it and whatever the drain delay.
    const stop = options.stopSignal;
    this.readiness = new Readiness(options.readyWhen, stop > 0 ? () => native.signalsReceived(stop) : () => 0);
    this.notifications = new Notifications(native, this.readiness, log, this.procTrusted);
    this.drain = TrafficDrain.fromOptions(options, native, log, () => this.guarded(() => this.step({ kind: 'traffic-quiet' })));
    const snapshots = new SnapshotSource(
      { options, native, log, tree: this.tree, memory: this.memory, readiness: this.readiness, drain: this.drain, isInit: this.isInit, procTrusted: this.procTrusted },
      () => ({ phase: this.lifecycle.phase, mainPid: this.mainPid, mainExit: this.mainExit, survivorsKilled: this.survivorsKilled }),
    );
    this.exporters = new Exporters(options, () => snapshots.take(), log, native, () => this.memory.afterAnswer(), () => this.readiness.state());
    this.steps = new StopSteps((action) => this.act(action), log);
  }

  /** Counts so far: reaped processes, orphans, signals by name. */
  stats(): ReapStats {
    return toReapStats(this.native.stats());
  }

  start(): void {
    const { native, options } = this;
    // Every thread sexton will ever have starts here, before the child: once the app fills the
    // pids limit, no new one could be made.
    this.startThread('notifier', native.startNotifier((notice) => this.guarded(() => this.onNotice(notice))));
    this.startThread('reaper', native.startReaper((event) => this.guarded(() => this.onReap(event))));
    if (!this.procTrusted) {
      native.setProcTrusted(false);
      this.log.warn("/proc does not show sexton's own PID namespace (mount one, e.g. unshare --mount-proc): sexton reaps and forwards signals, but scans and names no process");
    }
    applySignalPolicy(native, options);
    setStopDeadline(native, options, this.log, this.isInit, this.procTrusted);
    const subreaper = this.isInit || (this.options.subreaper && native.becomeSubreaper()) || native.isSubreaper();
    stopPathWarnings({ isInit: this.isInit, subreaper, procTrusted: this.procTrusted, ppid: process.ppid, pid1Name: this.isInit ? undefined : readPid1Name() }).forEach((w) => this.log.warn(w));
    this.memory.watch();
    if (options.readyWhen === 'notify') this.notifications.open();

    const [command] = options.command;
    const argv = rawArguments(options.command, this.procTrusted);
    const candidates = commandCandidates(argv[0]);
    const childOomScoreAdj = this.memory.childOomScoreAdj();  // from what sexton holds before it lets go
    this.memory.releaseBeforeSpawn();
    const result = native.spawn(argv, candidates, childOomScoreAdj, options.childSession);
    if (result.forkErrno !== 0) this.fail(`cannot start ${quote(command)}: fork failed (${errnoName(result.forkErrno)})`, EXIT.cannotRun);
    if (result.execErrno !== 0) {
      const failure = this.hooks.execFailure?.(command, result.execErrno) ?? execFailure(command, result.execErrno, candidates);
      this.fail(failure.message, failure.exitCode);
    }
    this.mainPid = result.pid;
    // The child runs. From here on the init may no longer bail: no error ends sexton, every one is
    // a line in the log, and the only ways out are the child's exit and the stop sequence.
    this.step({ kind: 'started' });
    this.readiness.started();
    this.log.info(`started ${quote(options.command.join(' '))} as pid ${result.pid}`);
    listenOnlyForPolicy(native, options);
    this.catchUpOnStopSignals();  // one that came during start-up
    // The status socket now (binding a Unix socket costs ~0.5 ms; `sexton status` run at once
    // used to find nobody 8 times in 9), the rest once the child is on its way (see exporters/index.ts).
    const statusSocket = this.exporters.startStatusSocket();
    setTimeout(() => this.startExporters(statusSocket), EXPORTERS_DELAY_MS);
  }

  /** Node swallows an exception thrown in an addon's callback (a deprecation warning, once). */
  private guarded(handle: () => void): void {
    try {
      handle();
    } catch (error) {
      this.log.error(`internal error (sexton keeps running): ${internalErrorText(error, this.log.verbosity)}`);
    }
  }

  private startThread(name: string, errno: number): void {
    if (errno !== 0) throw new StartError(`cannot start its ${name} thread (${errnoName(errno)}${errno === constants.errno.EAGAIN ? ': the pids limit or RLIMIT_NPROC leaves no room' : ''})`);
  }

  private startExporters(statusSocket: Promise<void>): void {
    // Zombies of live parents change without any counter moving: the stats file adds the shared
    // snapshot's count to this key. An OOM kill of a grandchild moves no counter of sexton's either.
    const listening = this.exporters.start(() => {
      const c = this.native.stats();
      return `${this.lifecycle.phase} ${c.reaped} ${c.received.reduce((a, b) => a + b, 0)} ${this.memory.oomKills()}`;
    });
    // The stop signal's first step is a /proc scan: its first run costs ~0.5 ms of Node's own
    // warm-up (later ones 0.05 ms), which is better spent now than between a TERM and the exit.
    this.tree.processes();
    // Once the exporters listen, at the end of that turn of the event loop: released any
    // earlier, 5-8 MiB more file pages stayed resident until the first query (measured, RssFile
    // 5.5 MiB this way, 11-14 MiB released before listening). Not on a timer (no wake-up when
    // idle), not at the spawn (a command over at once never pays its 3 ms). The child's
    // oom_score_adj, set at the spawn, is what protects sexton before this.
    const release = () => setImmediate(() => this.memory.releaseNow());
    void Promise.all([listening, statusSocket]).then(release, release);
  }

  private onNotice(notice: Notice): void {
    if (notice.kind === 'oom') this.memory.onOomKill();
    else if (notice.kind === 'notify') this.notifications.receiveWaiting(this.mainPid);
    else if (notice.kind === 'lost') this.catchUpOnStopSignals();  // JS fell behind a flood
    else this.onSignal(notice);
  }

  private onSignal(notice: Notice): void {
    logSignalHandled(notice, this.options.pgroup ? `process group ${this.mainPid}` : `pid ${this.mainPid}`, this.log);
    if (notice.signal === this.options.stopSignal) this.catchUpOnStopSignals();
  }

  /**
   * Acts on every stop signal that has arrived, counted natively. Signal notices and reaper
   * events reach JS on separate threads, so the main child's death from a forwarded TERM may
   * be heard before the TERM itself (one queue would not help: the handler can be preempted
   * between its kill and its notice while the child dies). Whoever comes first catches up.
   */
  private catchUpOnStopSignals(): void {
    const arrived = this.native.stats().received[this.options.stopSignal];
    while (this.stopSignalsHandled < arrived) {
      this.stopSignalsHandled++;
      this.step({ kind: 'stop-signal' });
    }
  }

  /** Feeds one input to the lifecycle and carries out what it decides (scan: /proc, if read already). */
  private step(input: Parameters<Lifecycle['step']>[0], scan?: ProcessInfo[]): void {
    this.scan = scan;
    for (const action of this.lifecycle.step(input)) this.steps.run(action);
  }

  private processes(): ProcessInfo[] {
    this.scan ??= this.tree.processes();
    return this.scan;
  }

  private act(action: Action): void {
    switch (action.kind) {
      case 'log':
        return this.log[action.level](action.message);
      case 'report-zombie-parents':
        return this.tree.blameZombieParents(this.processes(), this.log, (look) => this.guarded(look));
      case 'forward-stop-signal': {
        const as = this.options.rewrites.get(this.options.stopSignal) ?? this.options.stopSignal;
        if (as > 0) this.native.signalMainChild(as);
        return;
      }
      case 'terminate-daemons': {
        const daemons = this.tree.reparented(this.processes(), this.mainPid);
        if (daemons.length === 0) return;
        this.log.info(`sending TERM to ${daemons.length} re-parented process(es): ${daemons.map((p) => p.pid).join(' ')}`);
        return this.tree.terminate(daemons);
      }
      case 'terminate-leftovers':
        return this.tree.terminate(this.processes().filter((p) => p.state !== 'Z'));
      case 'terminate-unseen':
        return void this.native.signalEveryProcess(constants.signals.SIGTERM);
      case 'kill-survivors':
        try {
          this.survivorsKilled += this.tree.reportSurvivors(this.log);
        } finally {
          this.tree.killAll();  // the kill never waits on the report
        }
        return;
      case 'retry-failed-steps':
        this.scan = undefined;  // read /proc afresh: descriptors may be back
        return this.steps.retry((kinds) => this.log.warn(`received ${signalName(this.options.stopSignal)} again: retrying ${kinds}`));
      case 'report-unkillable':
        this.tree.reportUnkillable(this.log);
        return this.exporters.changed();  // a scrape in the second before the exit must name them
      case 'watch-traffic':
        return this.drain?.start();
      case 'end-drain':
        return this.drain?.forwarded(action.by);
      case 'start-timer':
        return this.startTimer(action.timer, action.seconds);
      case 'cancel-timer':
        return clearTimeout(this.timers.get(action.timer));
      case 'finish':
        return this.finish();
    }
  }

  private startTimer(timer: Timer, seconds: number): void {
    const input = { drain: 'drain-over', grace: 'grace-over', 'kill-check': 'kill-check', backstop: 'backstop' } as const;
    // The kill round repeats until the tree is empty; the others fire once.
    const handle = timer === 'kill-repeat'
      ? setInterval(() => this.guarded(() => this.tree.killAll()), seconds * 1000).unref()
      : setTimeout(() => this.step({ kind: input[timer] }), seconds * 1000);
    // These must not keep sexton alive on their own; the grace and drain timers do.
    if (timer === 'backstop' || timer === 'kill-check') handle.unref();
    this.timers.set(timer, handle);
  }

  private onReap(event: ReapEvent): void {
    if (event.kind === 'orphan-reaped') return this.hooks.orphanReaped?.(event.pid, event.unreported);
    if (event.kind === 'no-children') return this.step({ kind: 'no-children' });
    this.catchUpOnStopSignals();  // a stop signal that killed it comes first, even if heard later
    this.mainExit = { exitCode: event.exitCode, signal: event.signal };
    this.readiness.mainExited();
    const how = event.signal ? `was killed by ${signalName(event.signal)}` : `exited with code ${event.exitCode}`;
    const oom = event.signal === SIGKILL && (this.memory.oomKills() ?? 0) > 0;
    if (oom) this.log.warn(`main child (pid ${event.pid}) was killed by SIGKILL after an OOM kill in sexton's memory cgroup: most likely the OOM killer`);
    else this.log.info(`main child (pid ${event.pid}) ${how}`);
    // tini and dumb-init leave as soon as the main child has: to the lifecycle, nothing is left.
    const lastChild = this.hooks.mainExited?.(event.pid) || event.lastChild;
    // Scanned only when something may be left and the lifecycle may act on it.
    const scan = !lastChild && this.lifecycle.phase !== 'killing' ? this.tree.processesOrUnseen(this.log) : [];
    const leftovers = this.procTrusted && scan ? scan.filter((p) => p.state !== 'Z').length : 'unseen';
    this.step({ kind: 'main-exited', lastChild, leftovers }, scan);
    this.native.mainExitAnswered();  // the lifecycle has acted: the addon's watch becomes the deadline
  }

  private finish(): never {
    const stats = this.stats();
    const leaked = leaks(stats.orphansReaped, this.tree.heldZombies);
    const { code, strictFailure } = exitStatus(this.mainExit, this.options, leaked);
    try {  // the report and the stats file may fail (out of descriptors); the exit may not
      this.drain?.finish();
      if (strictFailure) this.log.error(`strict: ${leaked.join('; ')}`);
      // The final stats file first: whoever reads the exit line may read the file at once.
      this.exporters.close();
      const noteworthy = this.lifecycle.shuttingDown || this.survivorsKilled > 0 || (stats.orphansReaped > 0 && !this.hooks.mainExited);
      const killed = this.survivorsKilled ? `; killed ${this.survivorsKilled} survivor(s)` : '';
      (noteworthy ? this.log.warn : this.log.info).call(this.log, `exiting with ${code}: ${summarize(stats)}${killed}`, { exitCode: code, ...stats });
    } finally {
      this.native.exit(code);
    }
  }

  private fail(message: string, exitCode: number): never {
    this.log.error(message);
    this.mainExit = { exitCode, signal: 0 };
    this.exporters.close();  // a CI job reads the stats file most when the command was broken
    return this.native.exit(exitCode);
  }
}
