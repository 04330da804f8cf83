// What the init's reports say (`sexton status`, metrics, the stats file): the lifecycle's state
// of the moment, with what /proc shows of the pod, assembled into one snapshot.
import type { Host } from '../platform/host';
import type { Logger } from '../platform/log';
import { readPidsBudget } from '../platform/pids-cgroup';
import { descendantsOf, scanProcesses } from '../platform/procfs';
import type { Options } from '../config/options';
import type { HealthState } from '../report/exporters/health';
import { buildSnapshot, REPORT_SCAN_BUDGET } from '../report/snapshot';
import { StatsSnapshot, toReapStats } from '../report/stats';
import type { TrafficDrain } from './drain';
import type { InitState } from './lifecycle';
import type { MemoryGuard } from './memory';
import type { ProcessTree } from './process-tree';

export interface SnapshotParts {
  options: Options;
  host: Host;
  log: Logger;
  tree: ProcessTree;
  memory: MemoryGuard;
  drain?: TrafficDrain;
  /** The lifecycle's state and readiness, read at each snapshot. */
  state(): Readonly<InitState>;
  health(): HealthState;
}

export class SnapshotSource {
  private readonly startedAt: number;

  constructor(private readonly parts: SnapshotParts) {
    this.startedAt = parts.host.clock.now();
  }

  /** Everything sexton knows. Reads /proc, each scan within REPORT_SCAN_BUDGET. */
  take(): StatsSnapshot {
    const { options, host, log, tree, memory, drain } = this.parts;
    const { isInit, procTrusted, procRoot, native } = host;
    const { phase, mainPid, mainExit, survivorsKilled, app } = this.parts.state();
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
      health: { readyWhen: options.readyWhen, ...this.parts.health(), notifications: { ...app.counts } },
      unkillable: tree.unkillable,
    });
  }
}
