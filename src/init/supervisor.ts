// The supervisor: the intake of the init's one loop. The reaper's events, the notifier's
// notices, every timer and the listeners' answers come in as inputs (loop.ts), one at a time;
// the lifecycle decides (lifecycle.ts), and the executor carries out the actions it returns
// (executor.ts). All it knows of the machine is the Host boot gave it.
import { constants, errnoName } from '../platform/os-constants';
import { Input, Lifecycle } from './lifecycle';
import { commandCandidates, execFailure, rawArguments } from './command';
import type { Host } from '../platform/host';
import type { Logger } from '../platform/log';
import { MemoryGuard } from './memory';
import { Notice, ReapEvent, StartError } from '../platform/native';
import { EXIT } from '../config/exit-codes';
import type { Options } from '../config/options';
import { ProcessTree } from './process-tree';
import type { ProcessInfo } from '../platform/procfs';
import { quote } from '../config/quote';
import { applySignalPolicy, listenOnlyForPolicy, logSignalHandled, stopPathWarnings } from './signal-policy';
import { signalName } from '../platform/signals';
import { Exporters } from '../report/exporters';
import type { HealthState } from '../report/exporters/health';
import { internalErrorText } from './internal-error';
import { setStopDeadline } from './stop-deadline';
import { Executor, InitParts } from './executor';
import { TrafficDrain } from './drain';
import { Notifications, readinessNow } from './readiness';
import { SnapshotSource } from './snapshot-source';
import { Loop, TimerInput } from './loop';

const { SIGKILL } = constants.signals;

/**
 * How a personality (src/personalities) changes the init: tini and dumb-init leave as soon as
 * their main child does, and word some events their own way. sexton has none.
 */
export interface SupervisorHooks {
  /** The main child was reaped: return true to exit at once with its status (no grace period). */
  mainExited?(pid: number): boolean;
  /**
   * Each orphan reaped, once native.setReportOrphans(true) asked for them; `unreported` more
   * were reaped before it with no report of their own (JS had fallen behind).
   */
  orphanReaped?(pid: number, unreported: number): void;
  /** How a command that could not be executed is reported, and the status sexton exits with. */
  execFailure?(command: string, errno: number): { message: string; exitCode: number } | undefined;
}

/**
 * How long after the child's start metrics, /livez, /readyz and the stats file come up: loading
 * node:http costs PID 1 ~17 ms of CPU (measured), which a command over within moments never needs.
 */
const EXPORTERS_DELAY_MS = 100;

/** What reaches the loop from outside: the addon's two threads, and the listeners' answers. */
export type Event = { kind: 'reap'; event: ReapEvent } | { kind: 'notice'; notice: Notice } | { kind: 'answered' };

export class Supervisor {
  private readonly loop: Loop<Event>;
  /** The lifecycle and the collaborators that act on the machine, shared with the executor and the reports. */
  private readonly parts: InitParts;
  private readonly executor: Executor;
  private readonly notifications: Notifications;
  private readonly snapshots: SnapshotSource;
  private statusSocket: Promise<void> = Promise.resolve();

  constructor(
    private readonly options: Options,
    private readonly log: Logger,
    private readonly host: Host,
    private readonly hooks: SupervisorHooks = {},
  ) {
    const { native, isInit } = host;
    const report = (error: unknown) => log.error(
      `internal error (sexton keeps running): ${internalErrorText(error, log.verbosity)}`);
    const loop = this.loop = new Loop<Event>(host.clock, (input) => this.handle(input), report);
    const { drainDelay, drainQuiet, grace, stopSignal } = options;
    const lifecycle = new Lifecycle({ drainDelay, drainQuiet, grace, stopSignalName: signalName(stopSignal), isInit });
    this.notifications = new Notifications(host, log);
    const answered = () => loop.post({ kind: 'answered' });
    const exporters = new Exporters(options, () => this.snapshots.take(), log, native, answered, () => this.health());
    this.parts = { host, options, log, lifecycle, exporters, timers: loop,
      tree: new ProcessTree(host, loop),
      memory: new MemoryGuard(host, log, options.childOomScoreAdj, loop),
      drain: drainQuiet > 0 ? new TrafficDrain(options, host, log, loop, exporters.own) : undefined,
      leavesWithMainChild: hooks.mainExited !== undefined };
    this.executor = new Executor(this.parts);
    this.snapshots = new SnapshotSource(this.parts);
  }

  /** Readiness now (readiness.ts). */
  health(): HealthState {
    return readinessNow(this.parts.lifecycle.state, this.options, this.host.native);
  }

  start(): void {
    const { options, host } = this;
    const { native, isInit, procTrusted } = host;
    // Every thread sexton will ever have starts here, before the child: once the app fills the
    // pids limit, no new one could be made.
    this.startThread('notifier', native.startNotifier((notice) => this.loop.post({ kind: 'notice', notice })));
    this.startThread('reaper', native.startReaper((event) => this.loop.post({ kind: 'reap', event })));
    if (!procTrusted) {
      native.setProcTrusted(false);
      this.log.warn(
        "/proc does not show sexton's own PID namespace (mount one, e.g. unshare --mount-proc): sexton reaps and " +
          "forwards signals, but scans and names no process");
    }
    applySignalPolicy(native, options);
    setStopDeadline(host, options, this.log);
    const subreaper = isInit || (options.subreaper && native.becomeSubreaper()) || native.isSubreaper();
    stopPathWarnings({ isInit, subreaper, procTrusted, ppid: host.ppid, pid1Name: host.pid1Name }).forEach(
      (w) => this.log.warn(w));
    this.parts.memory.watch();
    if (options.readyWhen === 'notify') this.notifications.open();

    const [command] = options.command;
    const argv = rawArguments(options.command, procTrusted);
    const candidates = commandCandidates(argv[0]);
    const childOomScoreAdj = this.parts.memory.prepareSpawn();
    const result = native.spawn(argv, candidates, childOomScoreAdj, options.childSession);
    if (result.forkErrno !== 0) this.executor.failStart(
      `cannot start ${quote(command)}: fork failed (${errnoName(result.forkErrno)})`, EXIT.cannotRun);
    if (result.execErrno !== 0) {
      const failure = this.hooks.execFailure?.(command, result.execErrno) ?? execFailure(command, result.execErrno,
        candidates);
      this.executor.failStart(failure.message, failure.exitCode);
    }
    // The child runs. From here on the init may no longer bail: no error ends sexton, every one is
    // a line in the log, and the only ways out are the child's exit and the stop sequence.
    this.step({ kind: 'started', pid: result.pid });
    this.log.info(`started ${quote(options.command.join(' '))} as pid ${result.pid}`);
    listenOnlyForPolicy(native, options);
    this.catchUpOnStopSignals();  // one that came during start-up
    // The status socket now (binding a Unix socket costs ~0.5 ms; `sexton status` run at once
    // used to find nobody 8 times in 9), the rest once the child is on its way (see exporters/index.ts).
    this.statusSocket = this.parts.exporters.startStatusSocket();
    this.loop.start('exporters', EXPORTERS_DELAY_MS, { keepAlive: true });
  }

  private startThread(name: string, errno: number): void {
    if (errno === 0) return;
    const full = errno === constants.errno.EAGAIN ? ': the pids limit or RLIMIT_NPROC leaves no room' : '';
    throw new StartError(`cannot start its ${name} thread (${errnoName(errno)}${full})`);
  }

  /** The one handler of the loop's inputs. */
  private handle(input: Event | TimerInput): void {
    if (input.kind === 'reap') return this.onReap(input.event);
    if (input.kind === 'notice') return this.onNotice(input.notice);
    if (input.kind === 'answered') return this.parts.memory.afterAnswer();
    const { timer } = input;
    switch (timer) {
      case 'kill-repeat': return this.parts.tree.killAll();  // whatever the phase, until the exit
      case 'exporters': return this.startExporters();
      case 'zombie-relook': return this.parts.tree.blameZombieParents(this.parts.tree.processes(), this.log, false);
      case 'drain-sample': return void (this.parts.drain?.tick() && this.step({ kind: 'traffic-quiet' }));
      case 'oom-recheck': case 'oom-release': case 'release-now': case 'release-soon': case 'settle':
        return this.parts.memory.onTimer(timer);
      default: return this.step({ kind: 'timer', timer });  // the lifecycle's own
    }
  }

  private startExporters(): void {
    // Zombies of live parents change without any counter moving: the stats file adds the shared
    // snapshot's count to this key. An OOM kill of a grandchild moves no counter of sexton's either.
    const { lifecycle, memory } = this.parts;
    const listening = this.parts.exporters.start(() => {
      const c = this.host.native.stats();
      return `${lifecycle.phase} ${c.reaped} ${c.received.reduce((a, b) => a + b, 0)} ${memory.oomKills()}`;
    });
    // The stop signal's first step is a /proc scan: its first run costs ~0.5 ms of Node's own
    // warm-up (later ones 0.05 ms), which is better spent now than between a TERM and the exit.
    this.parts.tree.processes();
    // Once the exporters listen, at the end of that turn of the event loop: released any
    // earlier, 5-8 MiB more file pages stayed resident until the first query (measured, RssFile
    // 5.5 MiB this way, 11-14 MiB released before listening). Not on a timer (no wake-up when
    // idle), not at the spawn (a command over at once never pays its 3 ms). The child's
    // oom_score_adj, set at the spawn, is what protects sexton before this.
    const release = () => this.loop.start('release-now', 0, { soon: true });
    void Promise.all([listening, this.statusSocket]).then(release, release);
  }

  private onNotice(notice: Notice): void {
    if (notice.kind === 'oom') return this.parts.memory.onOomKill();
    if (notice.kind === 'lost') return this.catchUpOnStopSignals();  // JS fell behind a flood
    if (notice.kind === 'notify') {
      for (const input of this.notifications.receiveWaiting(this.parts.lifecycle.state.mainPid)) {
        const was = this.health().ready;
        this.step(input);
        const now = this.health();
        if (now.ready !== was) this.log.info(now.ready ? 'the app is ready (READY=1)'
          : `the app is not ready: ${now.reason}`);
      }
      return;
    }
    const mainPid = this.parts.lifecycle.state.mainPid;
    logSignalHandled(notice, this.options.pgroup ? `process group ${mainPid}` : `pid ${mainPid}`, this.log);
    if (notice.signal === this.options.stopSignal) this.catchUpOnStopSignals();
  }

  /**
   * Acts on every stop signal that has arrived, counted natively. Signal notices and reaper
   * events reach JS on separate threads, so the main child's death from a forwarded TERM may
   * be heard before the TERM itself (one queue would not help: the handler can be preempted
   * between its kill and its notice while the child dies). Whoever comes first catches up.
   */
  private catchUpOnStopSignals(): void {
    this.step({ kind: 'stop-signals', arrived: this.host.native.stats().received[this.options.stopSignal] });
  }

  /** Feeds one input to the lifecycle, now, and carries out what it decides (scan: /proc, if read already). */
  private step(input: Input, scan?: ProcessInfo[]): void {
    this.executor.run(this.parts.lifecycle.step(input, this.host.clock.now()), scan);
  }

  private onReap(event: ReapEvent): void {
    if (event.kind === 'orphan-reaped') return this.hooks.orphanReaped?.(event.pid, event.unreported);
    if (event.kind === 'no-children') return this.step({ kind: 'no-children' });
    this.catchUpOnStopSignals();  // a stop signal that killed it comes first, even if heard later
    const how = event.signal ? `was killed by ${signalName(event.signal)}` : `exited with code ${event.exitCode}`;
    const oom = event.signal === SIGKILL && (this.parts.memory.oomKills() ?? 0) > 0;
    if (oom) this.log.warn(
      `main child (pid ${event.pid}) was killed by SIGKILL after an OOM kill in sexton's memory cgroup: most likely ` +
        `the OOM killer`);
    else this.log.info(`main child (pid ${event.pid}) ${how}`);
    // tini and dumb-init leave as soon as the main child has: to the lifecycle, nothing is left.
    const lastChild = this.hooks.mainExited?.(event.pid) || event.lastChild;
    // Scanned only when something may be left and the lifecycle may act on it.
    const { lifecycle, tree } = this.parts;
    const scan = !lastChild && lifecycle.phase !== 'killing' ? tree.processesOrUnseen(this.log) : [];
    const leftovers = this.host.procTrusted && scan ? scan.filter((p) => p.state !== 'Z').length : 'unseen';
    this.step({ kind: 'main-exited', lastChild, leftovers, exit: { exitCode: event.exitCode, signal: event.signal } },
      scan);
    this.host.native.mainExitAnswered();  // the lifecycle has acted: the addon's watch becomes the deadline
  }
}
