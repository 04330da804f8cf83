// The supervisor's lifecycle: start the main child, watch it, and shut the tree down.
//
//   running ──stop signal──▶ draining (drain delay) ──▶ stopping (grace period)
//      │                                                    │
//      └──main child exits──▶ leftovers get TERM ◀──────────┘ main child exits
//                             grace period over ──▶ killing: SIGKILL survivors
//   no children left and the main child gone ──▶ exit with its status
import { constants } from 'node:os';
import { commandCandidates, errnoName, execFailure, rawArguments } from './command';
import { Logger, DEBUG } from './log';
import { MemoryGuard } from './memory';
import { Native, Notice, NOTIFY_ONLY, ReapEvent, StartError } from './native';
import type { Options } from './options';
import { ProcessTree } from './process-tree';
import { commandOf, describeState, procShowsOwnNamespace, ProcessInfo, taskCount, ZombieGroup } from './procfs';
import { quote } from './quote';
import { signalName } from './signals';
import { ReapStats, StatsSnapshot, summarize, toReapStats } from './stats';
import { startMetricsServer } from './exporters/prometheus';
import { StatsFile } from './exporters/stats-file';
import { startStatusSocket, StatusSocket } from './exporters/status-socket';

declare const SEXTON_VERSION: string;

const { SIGKILL } = constants.signals;
/** Exit status under --strict when the child succeeded but leaked; documented in the README. */
export const STRICT_EXIT = 70;
const { ESRCH } = constants.errno;
/** How long after the child's start the status socket, metrics and stats file come up. */
const EXPORTERS_DELAY_MS = 100;
/** How often the kill round repeats until the tree is empty (a child may fork meanwhile). */
const KILL_REPEAT_MS = 100;
/** Exit anyway this long after SIGKILL, if something in state D refuses to go. */
const KILL_BACKSTOP_MS = 2000;

export type Phase = 'starting' | 'running' | 'draining' | 'stopping' | 'killing';

export class Supervisor {
  private phase: Phase = 'starting';
  private mainPid = 0;
  private mainExit?: { exitCode: number; signal: number };
  private drainTimer?: NodeJS.Timeout;
  private graceTimer?: NodeJS.Timeout;
  /** Stop signals acted on so far; the native counter says how many arrived. */
  private stopSignalsHandled = 0;
  private survivorsKilled = 0;
  /** Zombies that live parents held when shutdown began: what --strict calls a leak. */
  private heldZombies: ZombieGroup[] = [];
  private readonly isInit = process.pid === 1;
  /** Whether /proc shows sexton's own PID namespace: if not, nothing is scanned or named. */
  private readonly procTrusted = procShowsOwnNamespace();
  private readonly tree: ProcessTree;
  private readonly memory: MemoryGuard;
  private readonly startedAt = Date.now();
  private statusSocket?: StatusSocket;
  private statsFile?: StatsFile;

  constructor(
    private readonly options: Options,
    private readonly log: Logger,
    private readonly native: Native,
  ) {
    this.tree = new ProcessTree(native, this.isInit, this.procTrusted);
    this.memory = new MemoryGuard(native, log, options.childOomScoreAdj);
  }

  /** Counts so far: reaped processes, orphans, signals by name. */
  stats(): ReapStats {
    return toReapStats(this.native.stats());
  }

  /** Everything sexton knows, for `sexton status`, metrics and the stats file. Reads /proc. */
  snapshot(): StatsSnapshot {
    const zombies = this.zombieParents();
    const exit = this.mainExit;
    this.memory.releaseSoon();  // answering faulted code in
    return {
      version: typeof SEXTON_VERSION === 'string' ? SEXTON_VERSION : 'dev',
      pid: process.pid,
      role: this.isInit ? 'init' : this.native.isSubreaper() ? 'subreaper' : 'parent',
      uptimeSeconds: (Date.now() - this.startedAt) / 1000,
      phase: this.phase,
      mainChild: {
        pid: this.mainPid,
        command: this.options.command.join(' '),
        state: exit ? 'exited' : 'running',
        ...(exit && (exit.signal ? { signal: signalName(exit.signal) } : { exitCode: exit.exitCode })),
      },
      ...this.stats(),
      zombies,
      zombieCount: zombies.reduce((sum, z) => sum + z.zombies, 0),
      procfs: this.procTrusted ? 'own' : 'foreign',
      tasks: taskCount(),
      oomKills: this.memory.oomKills() ?? null,
      logLinesDropped: this.log.droppedLines,
    };
  }

  /** Zombies sexton cannot reap because their parent lives and never waits, by parent. Reads /proc. */
  zombieParents(): ZombieGroup[] {
    return this.tree.zombieParents();
  }

  /** Logs and remembers who holds zombies; called when shutdown begins. */
  private reportHeldZombies(processes: ProcessInfo[]): void {
    this.heldZombies = this.tree.zombieParents(processes);
    for (const g of this.heldZombies) {
      this.log.warn(`pid ${g.pid} (${g.command}) holds ${g.zombies} zombie(s) it never waited for; no init can reap them while it lives`, { parent: g.pid, command: g.command, zombies: g.zombies });
    }
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
    for (const [from, to] of options.rewrites) native.setSignalAction(from, to);
    // With a drain delay the stop signal waits for policy; without one it goes out at once.
    if (options.drainDelay > 0) native.setSignalAction(options.stopSignal, NOTIFY_ONLY);
    native.setForwardToGroup(options.pgroup);
    if (options.pdeathSignal !== undefined) native.setParentDeathSignal(options.pdeathSignal);
    // Built now (no I/O) so that the final write happens even for a command over in moments.
    if (options.statsFile) this.statsFile = new StatsFile(options.statsFile, () => this.snapshot(), this.log);
    this.becomeReaper();
    this.memory.watch();

    const [command] = options.command;
    const argv = rawArguments(options.command, this.procTrusted);
    const candidates = commandCandidates(argv[0]);
    const result = native.spawn(argv, candidates, this.memory.childOomScoreAdj());
    if (result.forkErrno !== 0) this.fail(`cannot start ${quote(command)}: fork failed (${errnoName(result.forkErrno)})`, 126);
    if (result.execErrno !== 0) {
      const failure = execFailure(command, result.execErrno, candidates);
      this.fail(failure.message, failure.exitCode);
    }
    this.mainPid = result.pid;
    this.phase = 'running';
    this.log.info(`started ${quote(options.command.join(' '))} as pid ${result.pid}`);
    // From now on JS hears only of what policy acts on, unless it logs every signal.
    for (let signal = 1; signal <= native.signalRange().rtmax; signal++) {
      native.setSignalNotify(signal, options.verbosity >= DEBUG || signal === options.stopSignal);
    }
    this.catchUpOnStopSignals();  // one that came during start-up
    // Once the child is well on its way: loading net and http must not delay its start, and a
    // command that is over within moments never needed them.
    setTimeout(() => this.startExporters(), EXPORTERS_DELAY_MS);
  }

  /** Node swallows an exception thrown in an addon's callback (a deprecation warning, once). */
  private guarded(handle: () => void): void {
    try {
      handle();
    } catch (error) {
      this.log.error(`internal error (sexton keeps running): ${(error as Error).stack ?? error}`);
    }
  }

  private startThread(name: string, errno: number): void {
    if (errno !== 0) throw new StartError(`cannot start its ${name} thread (${errnoName(errno)}${errno === constants.errno.EAGAIN ? ': the pids limit or RLIMIT_NPROC leaves no room' : ''})`);
  }

  private async startExporters(): Promise<void> {
    const { options, log } = this;
    this.memory.releaseSoon();
    const snapshot = () => this.snapshot();
    if (this.statsFile) {
      // Zombies of live parents change without any counter moving: the key scans /proc too.
      this.statsFile.watch(() => {
        const c = this.native.stats();
        const zombies = this.zombieParents().reduce((sum, z) => sum + z.zombies, 0);
        return `${this.phase} ${c.reaped} ${c.received.reduce((a, b) => a + b, 0)} ${zombies}`;
      });
    }
    if (options.metrics) startMetricsServer(options.metrics, snapshot, log);
    if (options.statusSocket.length > 0) this.statusSocket = await startStatusSocket(options.statusSocket, snapshot, log);
  }

  private becomeReaper(): void {
    if (this.isInit) return;
    if (this.options.subreaper && this.native.becomeSubreaper()) return;
    if (this.native.isSubreaper()) return;
    this.log.warn(`not PID 1 and not a subreaper: orphans of the child will be reaped by pid ${process.ppid}'s init, not by sexton`);
  }

  private onNotice(notice: Notice): void {
    if (notice.kind === 'oom') this.memory.onOomKill();
    else if (notice.kind === 'lost') this.catchUpOnStopSignals();  // JS fell behind a flood
    else this.onSignal(notice);
  }

  private onSignal(notice: Notice): void {
    const name = signalName(notice.signal);
    if (notice.action > 0) {
      const as = notice.action === notice.signal ? '' : ` as ${signalName(notice.action)}`;
      if (notice.errno === 0) this.log.debug(`forwarded ${name}${as} to ${this.target()}`);
      else if (notice.errno !== ESRCH) this.log.warn(`could not forward ${name}${as} to ${this.target()}: ${errnoName(notice.errno)}`);
    } else if (notice.action === 0) {
      this.log.debug(`dropped ${name}`);
    }
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
    const name = signalName(this.options.stopSignal);
    while (this.stopSignalsHandled < arrived) {
      this.stopSignalsHandled++;
      this.onStopSignal(name);
    }
  }

  private target(): string {
    return this.options.pgroup ? `process group ${this.mainPid}` : `pid ${this.mainPid}`;
  }

  private onStopSignal(name: string): void {
    const { drainDelay, grace } = this.options;
    if (this.mainExit) return;  // the tree is already being taken down
    if (this.phase === 'running') {
      const processes = this.tree.processes();
      this.reportHeldZombies(processes);
      const drain = drainDelay > 0 ? `after a ${drainDelay}s drain delay, ` : '';
      this.log.warn(`received ${name}: stopping ${drain}grace period ${grace}s`);
      if (drainDelay === 0) return this.startStopping(processes);  // the handler already forwarded it
      this.phase = 'draining';
      this.drainTimer = setTimeout(() => this.forwardStopSignal(), drainDelay * 1000);
    } else if (this.phase === 'draining') {
      this.log.warn(`received ${name} again: skipping the rest of the drain delay`);
      clearTimeout(this.drainTimer);
      this.forwardStopSignal();
    } else if (this.phase === 'stopping' && drainDelay > 0) {
      this.sendStopSignal();  // repeated stop signals reach the child, as without a delay
    }
  }

  private forwardStopSignal(): void {
    this.sendStopSignal();
    this.startStopping(this.tree.processes());
  }

  /**
   * The grace period starts with the stop signal's forwarding. Daemons that were re-parented to
   * sexton have no parent left to tell them to stop, so they get SIGTERM now, with the whole
   * grace period to finish their work, even if the main child ignores its signal.
   */
  private startStopping(processes: ProcessInfo[]): void {
    const daemons = this.tree.reparented(processes, this.mainPid);
    if (daemons.length > 0) {
      this.log.info(`sending TERM to ${daemons.length} re-parented process(es): ${daemons.map((p) => p.pid).join(' ')}`);
      this.tree.terminate(daemons);
    }
    this.startGrace();
  }

  private shuttingDown(): boolean {
    return this.phase === 'draining' || this.phase === 'stopping' || this.phase === 'killing';
  }



  private sendStopSignal(): void {
    const as = this.options.rewrites.get(this.options.stopSignal) ?? this.options.stopSignal;
    if (as > 0) this.native.signalMainChild(as);
  }

  private startGrace(): void {
    this.phase = 'stopping';
    this.graceTimer = setTimeout(() => this.killSurvivors(), this.options.grace * 1000);
  }

  private onReap(event: ReapEvent): void {
    if (event.kind === 'no-children') {
      if (this.mainExit) this.finish();
      return;
    }
    this.catchUpOnStopSignals();  // a stop signal that killed it comes first, even if heard later
    this.mainExit = { exitCode: event.exitCode, signal: event.signal };
    const how = event.signal ? `was killed by ${signalName(event.signal)}` : `exited with code ${event.exitCode}`;
    const oom = event.signal === SIGKILL && (this.memory.oomKills() ?? 0) > 0;
    if (oom) this.log.warn(`main child (pid ${event.pid}) was killed by SIGKILL after an OOM kill in sexton's memory cgroup: most likely the OOM killer`);
    else this.log.info(`main child (pid ${event.pid}) ${how}`);
    clearTimeout(this.drainTimer);
    if (event.lastChild) this.finish();  // nothing left to wait for or to scan /proc for
    if (this.phase === 'killing') return;
    this.terminateLeftovers();
  }



  private terminateLeftovers(): void {
    if (!this.procTrusted) return this.terminateUnseen();
    const processes = this.tree.processes();
    const left = processes.filter((p) => p.state !== 'Z');
    if (left.length === 0) return;  // the reaper reports "no children" next
    if (!this.shuttingDown()) this.reportHeldZombies(processes);
    const fresh = this.phase !== 'stopping';
    this.log.warn(`main child is gone; ${left.length} process(es) left: sending TERM, ${fresh ? `grace period ${this.options.grace}s` : 'within the grace period'}`);
    this.tree.terminate(left);
    if (fresh) this.startGrace();
    this.phase = 'stopping';
  }

  /** Without a /proc of its own, PID 1 still reaches every process of its namespace. */
  private terminateUnseen(): void {
    if (!this.isInit || this.phase === 'stopping') return;
    this.log.warn(`main child is gone; sending TERM to whatever is left (unseen: /proc is not this namespace's), grace period ${this.options.grace}s`);
    this.native.signalEveryProcess(constants.signals.SIGTERM);
    this.startGrace();
  }

  private killSurvivors(): void {
    this.phase = 'killing';
    for (const p of this.tree.processes()) {
      if (p.state === 'Z') {
        this.log.warn(`grace period over: pid ${p.pid} (${p.name}) is a zombie held by live parent ${p.ppid}; reaped once its parent dies`, { pid: p.pid, command: p.name, state: p.state, parent: p.ppid });
        continue;
      }
      const command = commandOf(p);
      this.log.warn(`grace period over: killing pid ${p.pid} (${command}), state ${describeState(p.state)}`, { pid: p.pid, command, state: p.state });
      this.survivorsKilled++;
    }
    this.tree.killAll();
    setInterval(() => this.tree.killAll(), KILL_REPEAT_MS).unref();
    setTimeout(() => {
      this.log.error('processes are still there after SIGKILL (uninterruptible?): exiting anyway');
      this.finish();
    }, KILL_BACKSTOP_MS).unref();
  }



  private exitCode(stats: ReapStats): number {
    // No exit heard: the main child outlived SIGKILL (state D) and sexton leaves without it.
    const exit = this.mainExit ?? { exitCode: 0, signal: SIGKILL };
    const raw = exit.signal ? 128 + exit.signal : exit.exitCode;
    const code = this.options.remapExit.has(raw) ? 0 : raw;
    if (!this.options.strict || code !== 0) return code;
    const leaks = this.leaks(stats);
    if (leaks.length === 0) return 0;
    this.log.error(`strict: ${leaks.join('; ')}`);
    return STRICT_EXIT;
  }

  /** What --strict fails on: orphans sexton had to reap, zombies live parents held. */
  private leaks(stats: ReapStats): string[] {
    const out: string[] = [];
    if (stats.orphansReaped > 0) out.push(`reaped ${stats.orphansReaped} orphan(s) the child's processes left behind`);
    for (const g of this.heldZombies) out.push(`pid ${g.pid} (${g.command}) held ${g.zombies} zombie(s)`);
    return out;
  }

  private finish(): never {
    clearTimeout(this.graceTimer);
    const stats = this.stats();
    const code = this.exitCode(stats);
    const noteworthy = this.shuttingDown() || stats.orphansReaped > 0 || this.survivorsKilled > 0;
    const killed = this.survivorsKilled ? `; killed ${this.survivorsKilled} survivor(s)` : '';
    (noteworthy ? this.log.warn : this.log.info).call(this.log, `exiting with ${code}: ${summarize(stats)}${killed}`, { exitCode: code, ...stats });
    this.statsFile?.write();
    this.statusSocket?.close();
    return this.native.exit(code);
  }

  private fail(message: string, exitCode: number): never {
    this.log.error(message);
    this.mainExit = { exitCode, signal: 0 };
    this.statsFile?.write();  // a CI job reads it most when the command was broken
    return this.native.exit(exitCode);
  }
}
