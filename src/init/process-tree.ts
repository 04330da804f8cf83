// The processes sexton answers for, found through /proc and signalled without racing pid reuse;
// the zombies among them aged, so that only a parent that holds them long is blamed.
import { constants } from '../platform/os-constants';
import type { Logger } from '../platform/log';
import type { Host } from '../platform/host';
import type { Timers } from './loop';
import { internalErrorText } from './internal-error';
import { agesSeconds, commandOf, describeState, descendantsOf, listProcesses, ProcessInfo, readProcess, ScanBudget,
  scanProcesses, ZombieGroup, zombiesByParent } from '../platform/procfs';
import { describeStuck, describeUnkillable } from '../platform/unkillable';
import type { Unkillable } from '../report/snapshot';
import type { StatsSnapshot } from '../report/stats';

/** Processes named one line each when SIGKILL did not end them; the rest are counted. */
export const MAX_UNKILLABLE_NAMED = 20;
/** Outsiders named in a snapshot: the rest are counted (the report's cost stays bounded). */
export const OUTSIDERS_SHOWN = 20;

export const ZOMBIE_BLAME_MS = 500;

const keyOf = (p: ProcessInfo) => `${p.pid}:${p.startTime}`;

/**
 * How long sexton has known each zombie: a parent is blamed for holding zombies only for those
 * it has held at least ZOMBIE_BLAME_MS (as the harness counts lingering zombies), so a parent
 * that reaps its children a few milliseconds late (PostgreSQL) is never called a leak.
 *
 * Why "known", not "dead for": the kernel keeps no time of death. /proc/PID/stat's start time
 * is when the process started, so a worker that ran an hour and exited a millisecond ago would
 * look an hour dead. What is sound is a lower bound: the zombie (the same pid and start time,
 * so not a reused pid) was already a zombie at an earlier look of sexton's, that long ago.
 * Every /proc look of the init records what it sees (the warm-up look 100 ms after the start,
 * each status, metrics or stats-file look, the stop); a zombie first seen at the stop is looked
 * at again ZOMBIE_BLAME_MS later if sexton is still there (blameZombieParents).
 */
export class ZombieAges {
  private readonly firstSeen = new Map<string, number>();

  /** Records the zombies of one look; forgets those reaped since. */
  look(processes: ProcessInfo[], nowMs: number): void {
    const seen = new Map<string, number>();
    for (const p of processes) {
      if (p.state !== 'Z') continue;
      seen.set(keyOf(p), this.firstSeen.get(keyOf(p)) ?? nowMs);
    }
    this.firstSeen.clear();
    for (const [key, since] of seen) this.firstSeen.set(key, since);
  }

  /** Known for at least ZOMBIE_BLAME_MS at `nowMs` (by the last look). */
  isOld(p: ProcessInfo, nowMs: number): boolean {
    const since = this.firstSeen.get(keyOf(p));
    return since !== undefined && nowMs - since >= ZOMBIE_BLAME_MS;
  }

  /** `processes` without the zombies known for less than ZOMBIE_BLAME_MS. */
  withoutYoung(processes: ProcessInfo[], nowMs: number): { kept: ProcessInfo[]; young: number } {
    const kept = processes.filter((p) => p.state !== 'Z' || this.isOld(p, nowMs));
    return { kept, young: processes.length - kept.length };
  }
}

const { SIGTERM, SIGKILL } = constants.signals;

/**
 * Whether p is owed no TERM of sexton's because the one forwarded to the main child's process
 * group (--pgroup) covers it: every member had it, and what the app started in the group since is
 * its own shutdown (a trap's clean-up), which a TERM would cut short. If still there, it gets
 * SIGKILL at the grace period. (Start times cannot tell "before the kill" from "just after": they
 * count 10 ms ticks, and a daemon that started in the TERM's tick got two under load.)
 */
export function gotGroupTerm(p: ProcessInfo, mainPid: number, groupGotTerm: boolean): boolean {
  return groupGotTerm && p.pgid === mainPid;
}

export class ProcessTree {
  private readonly zombieAges = new ZombieAges();
  /** Zombies that live parents held when shutdown began: what --strict calls a leak. */
  heldZombies: ZombieGroup[] = [];
  /** What was still alive a moment after SIGKILL. */
  unkillable: Unkillable = { named: [], more: 0 };
  /** Processes (pid:start time) already sent SIGTERM. */
  private readonly terminated = new Set<string>();

  /** Unless /proc shows sexton's namespace (host.procTrusted), the tree is treated as unseen. */
  constructor(private readonly host: Host, private readonly timers: Timers) {}

  /** sexton's pid as /proc shows it (1 inside its own namespace). */
  get ownPid(): number {
    return this.host.isInit ? 1 : this.host.pid;
  }

  private get proc(): string {
    return this.host.procRoot;
  }

  /** Every process but sexton: the namespace as PID 1, else sexton's subtree. Ages zombies. */
  processes(): ProcessInfo[] {
    if (!this.host.procTrusted) return [];
    const all = listProcesses(this.proc);
    const found = this.host.isInit ? all.filter((p) => p.pid !== 1) : descendantsOf(this.host.pid, all);
    this.zombieAges.look(found, this.host.clock.now());
    return found;
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

  /**
   * The zombies a report shows, read within budget: as PID 1 only zombies and their parents are
   * kept while /proc is walked. complete: false when the budget ran out first.
   */
  reportedZombies(budget: ScanBudget): { groups: ZombieGroup[]; complete: boolean } {
    if (!this.host.procTrusted) return { groups: [], complete: true };
    // Zombies are aged by this look too (ZombieAges); only a complete look may forget any.
    const now = this.host.clock.now();
    const { pid, isInit } = this.host;
    const aged = (list: ProcessInfo[], complete: boolean) => {
      if (complete) this.zombieAges.look(list, now);
      return this.zombieAges.withoutYoung(list, now).kept;
    };
    if (!isInit) {
      const { kept, complete } = scanProcesses(() => true, budget, this.proc);
      return { groups: zombiesByParent(aged(descendantsOf(pid, kept), complete), pid, this.proc), complete };
    }
    const { kept, complete } = scanProcesses((p) => p.state === 'Z' && p.ppid !== 1, budget, this.proc);
    const parents = [...new Set(kept.map((z) => z.ppid))].map((ppid) => readProcess(ppid, this.proc))
      .filter((p): p is ProcessInfo => p !== undefined);
    return { groups: zombiesByParent(aged([...kept, ...parents], complete), 1, this.proc), complete };
  }

  /**
   * Live processes that are not the main child nor below it (exec sessions, probe leftovers,
   * orphaned daemons), oldest first, at most `limit`; `count` is how many there are.
   */
  outsiders(processes: ProcessInfo[], mainPid: number, limit = OUTSIDERS_SHOWN):
    StatsSnapshot['budget']['outsiders'] {
    const inTree = new Set([mainPid, ...descendantsOf(mainPid, processes).map((p) => p.pid)]);
    const outside = processes.filter((p) => !inTree.has(p.pid) && p.state !== 'Z' && p.pid !== this.ownPid);
    const ages = agesSeconds(outside, this.proc);
    const shown = outside.sort((a, b) => a.startTime - b.startTime).slice(0, limit)
      .map((p) => ({ pid: p.pid, command: commandOf(p, this.proc), ageSeconds: Math.round(ages.get(p.pid) ?? 0) }));
    return { count: outside.length, shown };
  }

  /**
   * Logs each live parent that has held zombies for ZOMBIE_BLAME_MS or more (the app's bug; no
   * init can reap them) and keeps it in heldZombies, once. Younger zombies of live parents are
   * looked at again that much later (the 'zombie-relook' timer), never delaying the stop.
   */
  blameZombieParents(processes: ProcessInfo[], log: Logger, again = true): void {
    const now = this.host.clock.now();
    const groups = zombiesByParent(this.zombieAges.withoutYoung(processes, now).kept, this.ownPid, this.proc)
      .filter((g) => !this.heldZombies.some((held) => held.pid === g.pid));
    for (const g of groups) {
      log.warn(`pid ${g.pid} (${g.command}) holds ${g.zombies} zombie(s) it never waited for ` +
        `(held ${ZOMBIE_BLAME_MS} ms or more); no init can reap them while it lives`, { parent: g.pid,
          command: g.command, zombies: g.zombies });
    }
    this.heldZombies = [...this.heldZombies, ...groups];
    const young = this.zombieAges.withoutYoung(processes.filter((p) => p.ppid !== this.ownPid), now).young;
    if (young === 0 || !again) return;
    // The later look covers an earlier one's young zombies too: it is they, older by then.
    this.timers.cancel('zombie-relook');
    this.timers.start('zombie-relook', ZOMBIE_BLAME_MS);
  }

  /** Logs what is left when the grace period ends; returns how many live processes are killed. */
  reportSurvivors(log: Logger): number {
    let live = 0;
    for (const p of this.processes()) {
      if (p.state === 'Z') {
        log.warn(`grace period over: pid ${p.pid} (${p.name}) is a zombie held by live parent ${p.ppid}; reaped once ` +
          `its parent dies`, { pid: p.pid, command: p.name, state: p.state, parent: p.ppid });
        continue;
      }
      const command = commandOf(p, this.proc);
      log.warn(`grace period over: killing pid ${p.pid} (${command}), state ${describeState(p.state)}`,
        { pid: p.pid, command, state: p.state });
      live++;
    }
    return live;
  }

  /**
   * Names every live process a moment after SIGKILL, one line each up to MAX_UNKILLABLE_NAMED:
   * what it waits on is why the pod cannot finish.
   */
  reportUnkillable(log: Logger): Unkillable {
    const alive = this.processes().filter((p) => p.state !== 'Z' && p.state !== 'X');
    const named = alive.slice(0, MAX_UNKILLABLE_NAMED).map((p) => describeStuck(p, this.proc));
    for (const d of named) {
      log.error(`could not kill pid ${d.pid} (${d.command}): ${describeUnkillable(d)}`,
        { pid: d.pid, command: d.command, state: d.state, wchan: d.wchan, syscall: d.syscall,
          killPending: d.killPending, mount: d.mount });
    }
    const more = alive.length - named.length;
    if (more > 0) log.error(`could not kill ${more} more process(es), not named`);
    this.unkillable = { named, more };
    return this.unkillable;
  }

  /**
   * SIGTERM, once per process: a second TERM makes some programs skip their clean-up (and a
   * shell still in its TERM trap runs the trap again). Returns those it was sent to.
   */
  terminate(processes: ProcessInfo[], mainPid: number): ProcessInfo[] {
    const groupGotTerm = this.host.native.stats().groupGotTerm;
    const sent = processes.filter((p) => {
      const key = `${p.pid}:${p.startTime}`;
      if (this.terminated.has(key) || gotGroupTerm(p, mainPid, groupGotTerm)) return false;
      this.terminated.add(key);
      return true;
    });
    for (const p of sent) this.host.native.signalProcess(p.pid, SIGTERM, p.startTime);
    return sent;
  }

  /**
   * SIGKILL to everything left. kill(-1) means "this namespace" only for PID 1; elsewhere one by
   * one, and when /proc cannot be read (out of descriptors) the main child, or its group with
   * --pgroup, still gets it before the error goes on.
   */
  killAll(): void {
    const { native } = this.host;
    if (this.host.isInit) return void native.signalEveryProcess(SIGKILL);
    try {
      for (const p of this.processes()) native.signalProcess(p.pid, SIGKILL, p.startTime);
    } catch (error) {
      native.signalMainChild(SIGKILL);
      throw error;
    }
  }
}
