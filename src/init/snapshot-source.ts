// What the init's reports say (`sexton status`, metrics, the stats file): the supervisor's
// state of the moment, with what /proc shows of the pod, assembled into one snapshot.
import type { Logger } from '../platform/log';
import type { Native } from '../platform/native';
import { readPidsBudget } from '../platform/pids-cgroup';
import { descendantsOf, scanProcesses } from '../platform/procfs';
import type { Options } from '../config/options';
import { buildSnapshot, REPORT_SCAN_BUDGET } from '../report/snapshot';
import { MainExit, StatsSnapshot, toReapStats } from '../report/stats';
import type { TrafficDrain } from './drain';
import type { Phase } from './lifecycle';
import type { MemoryGuard } from './memory';
import type { ProcessTree } from './process-tree';
import type { Readiness } from './readiness';

/** The supervisor's state, read at each snapshot. */
export interface SupervisorState {
  phase: Phase;
  mainPid: number;
  mainExit?: MainExit;
  survivorsKilled: number;
}

export interface SnapshotParts {
  options: Options;
  native: Native;
  log: Logger;
  tree: ProcessTree;
  memory: MemoryGuard;
  readiness: Readiness;
  drain?: TrafficDrain;
  isInit: boolean;
  procTrusted: boolean;
}

export class SnapshotSource {
  private readonly startedAt = Date.now();

  constructor(private readonly parts: SnapshotParts, private readonly state: () => SupervisorState) {}

  /** Everything sexton knows. Reads /proc, each scan within REPORT_SCAN_BUDGET. */
  take(): StatsSnapshot {
    const { options, native, log, tree, memory, readiness, drain, isInit, procTrusted } = this.parts;
    const { phase, mainPid, mainExit, survivorsKilled } = this.state();
    memory.releaseSoon();  // answering faulted code in
    const zombies = tree.reportedZombies(REPORT_SCAN_BUDGET);
    // Outsiders need every process: read within the same budget as the zombies.
    const scanned = procTrusted ? scanProcesses(() => true, REPORT_SCAN_BUDGET).kept.filter((p) => p.pid !== tree.ownPid) : [];
    return buildSnapshot({
      role: isInit ? 'init' : native.isSubreaper() ? 'subreaper' : 'parent',
      startedAt: this.startedAt,
      phase,
      mainPid,
      mainExit,
      command: options.command,
      stats: toReapStats(native.stats()),
      zombies: zombies.groups,
      zombieScanComplete: zombies.complete,
      budget: {
        pids: readPidsBudget() ?? null,
        outsiders: mainPid > 0 ? tree.outsiders(isInit ? scanned : descendantsOf(process.pid, scanned), mainPid) : { count: 0, shown: [] },
      },
      procTrusted,
      oomKills: memory.oomKills(),
      logLinesDropped: log.droppedLines,
      survivorsKilled,
      drain: drain?.report() ?? null,
      health: { readyWhen: readiness.readyWhen, ...readiness.state(), notifications: { ...readiness.counts } },
      unkillable: tree.unkillable,
    });
  }
}
