// The processes sexton answers for, found through /proc and signalled without racing pid reuse.
import { constants } from '../platform/os-constants';
import type { Logger } from '../platform/log';
import type { Native } from '../platform/native';
import { internalErrorText } from './internal-error';
import { agesSeconds, commandOf, describeState, descendantsOf, listProcesses, ProcessInfo, readProcess, ScanBudget, scanProcesses, ZombieGroup, zombiesByParent } from '../platform/procfs';

/** Outsiders named in a snapshot: the rest are counted (the report's cost stays bounded). */
export const OUTSIDERS_SHOWN = 20;

export interface Outsider {
  pid: number;
  command: string;
  ageSeconds: number;
}

const { SIGTERM, SIGKILL } = constants.signals;

export class ProcessTree {
  /** Processes (pid:start time) already sent SIGTERM. */
  private readonly terminated = new Set<string>();

  /** scannable: /proc shows sexton's namespace; if not, the tree is treated as unseen. */
  constructor(private readonly native: Native, readonly isInit: boolean, private readonly scannable = true) {}

  /** sexton's pid as /proc shows it (1 inside its own namespace). */
  get ownPid(): number {
    return this.isInit ? 1 : process.pid;
  }

  /** Every process but sexton: the namespace as PID 1, else sexton's subtree. */
  processes(): ProcessInfo[] {
    if (!this.scannable) return [];
    return this.isInit ? listProcesses().filter((p) => p.pid !== 1) : descendantsOf(process.pid);
  }

  /**
   * processes(), or undefined when /proc cannot be read (out of descriptors), said in one line:
   * the tree is then unseen, as under a foreign /proc, and PID 1 still reaches it with kill(-1).
   */
  processesOrUnseen(log: Logger): ProcessInfo[] | undefined {
    try {
      return this.processes();
    } catch (error) {
      log.error(`the processes left cannot be listed: ${internalErrorText(error, log.verbosity)}`);
      return undefined;
    }
  }

  /** Live processes re-parented to sexton (orphaned daemons): nobody else will stop them. */
  reparented(processes: ProcessInfo[], mainPid: number): ProcessInfo[] {
    return processes.filter((p) => p.ppid === this.ownPid && p.pid !== mainPid && p.state !== 'Z');
  }

  /** Zombies sexton cannot reap because their parent lives and never waits, by parent. */
  zombieParents(processes = this.processes()): ZombieGroup[] {
    return zombiesByParent(processes, this.ownPid);
  }

  /**
   * The zombies a report shows, read within budget: as PID 1 only zombies and their parents are
   * kept while /proc is walked. complete: false when the budget ran out first.
   */
  reportedZombies(budget: ScanBudget): { groups: ZombieGroup[]; complete: boolean } {
    if (!this.scannable) return { groups: [], complete: true };
    if (!this.isInit) {
      const { kept, complete } = scanProcesses(() => true, budget);
      return { groups: zombiesByParent(descendantsOf(process.pid, kept), process.pid), complete };
    }
    const { kept, complete } = scanProcesses((p) => p.state === 'Z' && p.ppid !== 1, budget);
    const parents = [...new Set(kept.map((z) => z.ppid))].map((pid) => readProcess(pid)).filter((p): p is ProcessInfo => p !== undefined);
    return { groups: zombiesByParent([...kept, ...parents], 1), complete };
  }

  /**
   * Live processes that are not the main child nor below it (exec sessions, probe leftovers,
   * orphaned daemons), oldest first, at most `limit`; `count` is how many there are.
   */
  outsiders(processes: ProcessInfo[], mainPid: number, limit = OUTSIDERS_SHOWN): { count: number; shown: Outsider[] } {
    const inTree = new Set([mainPid, ...descendantsOf(mainPid, processes).map((p) => p.pid)]);
    const outside = processes.filter((p) => !inTree.has(p.pid) && p.state !== 'Z' && p.pid !== this.ownPid);
    const ages = agesSeconds(outside);
    const shown = outside.sort((a, b) => a.startTime - b.startTime).slice(0, limit)
      .map((p) => ({ pid: p.pid, command: commandOf(p), ageSeconds: Math.round(ages.get(p.pid) ?? 0) }));
    return { count: outside.length, shown };
  }

  /** Logs each live parent that holds zombies (the app's bug; no init can reap them). */
  reportZombieParents(processes: ProcessInfo[], log: Logger): ZombieGroup[] {
    const groups = this.zombieParents(processes);
    for (const g of groups) {
      log.warn(`pid ${g.pid} (${g.command}) holds ${g.zombies} zombie(s) it never waited for; no init can reap them while it lives`, { parent: g.pid, command: g.command, zombies: g.zombies });
    }
    return groups;
  }

  /** Logs what is left when the grace period ends; returns how many live processes are killed. */
  reportSurvivors(log: Logger): number {
    let live = 0;
    for (const p of this.processes()) {
      if (p.state === 'Z') {
        log.warn(`grace period over: pid ${p.pid} (${p.name}) is a zombie held by live parent ${p.ppid}; reaped once its parent dies`, { pid: p.pid, command: p.name, state: p.state, parent: p.ppid });
        continue;
      }
      const command = commandOf(p);
      log.warn(`grace period over: killing pid ${p.pid} (${command}), state ${describeState(p.state)}`, { pid: p.pid, command, state: p.state });
      live++;
    }
    return live;
  }

  /** SIGTERM, once per process: a second TERM makes some programs skip their clean-up. */
  terminate(processes: ProcessInfo[]): void {
    for (const p of processes) {
      const key = `${p.pid}:${p.startTime}`;
      if (this.terminated.has(key)) continue;
      this.terminated.add(key);
      this.native.signalProcess(p.pid, SIGTERM, p.startTime);
    }
  }

  /**
   * SIGKILL to everything left. kill(-1) means "this namespace" only for PID 1; elsewhere one by
   * one, and when /proc cannot be read (out of descriptors) the main child, or its group with
   * --pgroup, still gets it before the error goes on.
   */
  killAll(): void {
    if (this.isInit) return void this.native.signalEveryProcess(SIGKILL);
    try {
      for (const p of this.processes()) this.native.signalProcess(p.pid, SIGKILL, p.startTime);
    } catch (error) {
      this.native.signalMainChild(SIGKILL);
      throw error;
    }
  }
}
