// What the init's reports say (`sexton status`, metrics, the stats file): the lifecycle's state
// of the moment, with what /proc shows of the pod, assembled into one snapshot.
import { readPidsBudget } from '../platform/pids-cgroup';
import { descendantsOf, scanProcesses } from '../platform/procfs';
import { buildSnapshot, REPORT_SCAN_BUDGET } from '../report/snapshot';
import { StatsSnapshot, toReapStats } from '../report/stats';
import type { InitParts } from './executor';
import { readinessNow } from './readiness';

export class SnapshotSource {
  private readonly startedAt: number;

  constructor(private readonly parts: InitParts) {
    this.startedAt = parts.host.clock.now();
  }

  /** Everything sexton knows. Reads /proc, each scan within REPORT_SCAN_BUDGET. */
  take(): StatsSnapshot {
    const { options, host, log, lifecycle, tree, memory, drain } = this.parts;
    const { isInit, procTrusted, procRoot, native } = host;
    const { phase, mainPid, mainExit, survivorsKilled, app } = lifecycle.state;
    memory.releaseSoon();  // answering faulted code in
    const zombies = tree.reportedZombies(REPORT_SCAN_BUDGET);
    // Outsiders need every process: read within the same budget as the zombies.
    const scanned = procTrusted ? scanProcesses(() => true, REPORT_SCAN_BUDGET, procRoot).kept.filter(
      (p) => p.pid !== tree.ownPid) : [];
    const outsiders = mainPid > 0 ? tree.outsiders(isInit ? scanned : descendantsOf(host.pid, scanned), mainPid) : {
      count: 0, shown: [] };
    return buildSnapshot({
      pid: host.pid,
      now: host.clock.now(),
      role: isInit ? 'init' : native.isSubreaper() ? 'subreaper' : 'parent',
      startedAt: this.startedAt,
      phase,
      mainPid,
      mainExit,
      command: options.command,
      stats: toReapStats(native.stats()),
      zombies: zombies.groups,
      zombieScanComplete: zombies.complete,
      budget: { pids: readPidsBudget(host.cgroupRoot, procRoot) ?? null, outsiders },
      procTrusted,
      oomKills: memory.oomKills(),
      logLinesDropped: log.droppedLines,
      survivorsKilled,
      drain: drain?.report() ?? null,
      health: { readyWhen: options.readyWhen, ...readinessNow(lifecycle.state, options, native),
        notifications: { ...app.counts } },
      unkillable: tree.unkillable,
    });
  }
}
