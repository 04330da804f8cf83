// `sexton probe [--timeout S] [--kill-after S] -- CMD...`: an exec probe that leaves nothing
// behind. A runtime that gives up on a probe reaps its shell and leaves the children to the
// container's PID 1, still running (a hung curl, a setsid'd helper). This tool runs CMD as a
// subreaper in a process group of its own, so everything CMD starts stays below it, even what
// leaves the group or the session: on timeout the whole tree gets TERM, KILL after
// --kill-after, every process is reaped, and the status is 124 as timeout(1)'s. A room of its
// own (dist/probe.js): it uses the addon's spawn and reaper, never child_process.
import { writeSync } from 'node:fs';
import { quote } from '../config/quote';
import { CHILD_SESSION, loadNative, Native, ReapEvent } from '../platform/native';
import { constants, errnoName } from '../platform/os-constants';
import { descendantsOf, procShowsOwnNamespace } from '../platform/procfs';
import { ProbeOptions, parseProbeArgs, PROBE_EXIT, PROBE_USAGE, ProbeUsageError, searchCandidates } from './options';

const { SIGTERM, SIGKILL } = constants.signals;
/** How often the KILL round repeats until nothing is left (a process may fork meanwhile). */
const KILL_REPEAT_MS = 50;

function say(message: string): void {
  try {
    writeSync(2, `sexton probe: ${message}\n`);
  } catch {
    // nowhere to say it
  }
}

class Probe {
  private mainPid = 0;
  private status?: number;
  private timedOut = false;
  private stopping = false;
  private killRound?: NodeJS.Timeout;
  /** Without our own /proc the tree cannot be seen: the process group is all we can reach. */
  private readonly seesTree = procShowsOwnNamespace();

  constructor(private readonly native: Native, private readonly options: ProbeOptions, private readonly finish: (code: number) => void) {}

  start(): void {
    const { native, options } = this;
    if (!native.becomeSubreaper()) say('cannot become a subreaper: what CMD daemonizes escapes to PID 1');
    const errno = native.startReaper((event) => this.onReap(event));
    if (errno !== 0) return this.finish(this.fail(`cannot start the reaper thread (${errnoName(errno)})`, PROBE_EXIT.cannotRun));
    const [command] = options.command;
    const result = native.spawn(options.command, searchCandidates(command), undefined, CHILD_SESSION.ownGroup);
    if (result.forkErrno !== 0) return this.finish(this.fail(`cannot start ${quote(command)}: fork failed (${errnoName(result.forkErrno)})`, PROBE_EXIT.cannotRun));
    if (result.execErrno !== 0) {
      const notFound = result.execErrno === constants.errno.ENOENT;
      // The failed child is reaped by the reaper; its status is the one timeout(1) gives.
      this.status = notFound ? PROBE_EXIT.notFound : PROBE_EXIT.cannotRun;
      say(`cannot run ${quote(command)}: ${errnoName(result.execErrno)}`);
      return;
    }
    this.mainPid = result.pid;
    setTimeout(() => this.stop('timeout'), options.timeout * 1000).unref();
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => this.stop(signal));
  }

  private fail(message: string, code: number): number {
    say(message);
    return code;
  }

  /** TERM to the group and to every process below the probe, then KILL rounds after --kill-after. */
  private stop(why: 'timeout' | 'leftovers' | NodeJS.Signals): void {
    if (why === 'timeout' && this.status === undefined) {
      this.timedOut = true;
      say(`${quote(this.options.command.join(' '))} did not finish within ${this.options.timeout} s: terminating its process tree`);
    }
    if (why !== 'timeout' && why !== 'leftovers' && this.status === undefined) this.status = 128 + (constants.signals[why] ?? 0);
    if (this.stopping) return;
    this.stopping = true;
    this.signalTree(SIGTERM);
    setTimeout(() => {
      this.signalTree(SIGKILL);
      this.killRound = setInterval(() => this.signalTree(SIGKILL), KILL_REPEAT_MS);
    }, this.options.killAfter * 1000);
  }

  private signalTree(signal: number): void {
    if (this.mainPid > 0) {
      try {
        process.kill(-this.mainPid, signal);
      } catch {
        // the group is gone
      }
    }
    if (!this.seesTree) return;
    for (const p of descendantsOf(process.pid)) {
      if (p.state !== 'Z') this.native.signalProcess(p.pid, signal, p.startTime);
    }
  }

  private onReap(event: ReapEvent): void {
    if (event.kind === 'main-exited') {
      this.status ??= this.timedOut ? PROBE_EXIT.timedOut : event.signal ? 128 + event.signal : event.exitCode;
      if (event.lastChild) return this.done();
      this.stop('leftovers');  // what CMD left running must not outlive the probe
    } else if (event.kind === 'no-children' && this.status !== undefined) {
      this.done();
    }
  }

  private done(): void {
    clearInterval(this.killRound);
    this.finish(this.timedOut ? PROBE_EXIT.timedOut : (this.status as number));
  }
}

export async function probeMain(argv: string[]): Promise<number> {
  let options: ProbeOptions | 'help';
  try {
    options = parseProbeArgs(argv);
  } catch (error) {
    if (!(error instanceof ProbeUsageError)) throw error;
    say(`${error.message}; try 'sexton probe --help'`);
    return PROBE_EXIT.usage;
  }
  if (options === 'help') {
    writeSync(1, `${PROBE_USAGE}\n`);
    return 0;
  }
  const native = loadNative();
  const probeOptions = options;
  return new Promise((resolve) => new Probe(native, probeOptions, resolve).start());
}
