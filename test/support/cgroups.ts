// A pids cgroup per test (v1 here; v2 where it has the controller), like a pod's pid limit.
// A process joins it by writing its pid to cgroup.procs before it execs what runs under the
// limit (see underPidsLimit); everything it forks counts against pids.max.
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { procStat } from './processes';

/** Where pids cgroups are made, and whose: v2's root where it has the controller, else v1's. */
function pidsRoot(): { root: string; version: 1 | 2 } {
  try {
    if (readFileSync('/sys/fs/cgroup/cgroup.controllers', 'utf8').split(/\s+/).includes('pids')) return { root: '/sys/fs/cgroup', version: 2 };
  } catch {
    // not a v2 root with pids
  }
  return { root: '/sys/fs/cgroup/pids', version: 1 };
}

let made = 0;

export class PidsCgroup {
  readonly dir: string;
  readonly version = pidsRoot().version;
  /** Members (pid → start time) seen so far, so cleanup signals only processes that joined. */
  private readonly seen = new Map<number, number>();

  constructor(readonly name: string, readonly limit: number) {
    this.dir = path.join(pidsRoot().root, `sexton-faults-b-${name}-${process.pid}-${++made}`);
    mkdirSync(this.dir);
    writeFileSync(path.join(this.dir, 'pids.max'), String(limit));
  }

  /** Tasks (threads included) charged now. */
  current(): number {
    return Number(readFileSync(path.join(this.dir, 'pids.current'), 'utf8'));
  }

  /** How many forks or clones the limit refused so far (pids.events "max"). */
  refusals(): number {
    const m = /^max (\d+)$/m.exec(readFileSync(path.join(this.dir, 'pids.events'), 'utf8'));
    return m ? Number(m[1]) : 0;
  }

  procs(): number[] {
    const pids = readFileSync(path.join(this.dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
    for (const pid of pids) {
      const start = procStat(pid)?.startTime;
      if (start !== undefined && !this.seen.has(pid)) this.seen.set(pid, start);
    }
    return pids;
  }

  /** argv run as a member of this cgroup: sh joins, then execs it (same pid). */
  wrap(argv: string[]): string[] {
    return ['/bin/sh', '-c', `echo $$ > ${path.join(this.dir, 'cgroup.procs')} && exec "$@"`, 'sh', ...argv];
  }

  /** SIGKILLs every member still there (each is ours: it is in our cgroup) and removes the cgroup. */
  async remove(): Promise<void> {
    for (let attempt = 0; attempt < 50; attempt++) {
      for (const pid of this.procs()) {
        if (procStat(pid)?.startTime !== this.seen.get(pid)) continue;
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
      try {
        rmdirSync(this.dir);
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 100));  // members still being torn down
      }
    }
    throw new Error(`cannot remove ${this.dir}: members ${this.procs().join(' ')}`);
  }
}

/** For the cgroup v2 guest's tests: fails (never skips) on a host whose hierarchy is not v2 alone. */
export function requireCgroup2(): void {
  if (!readFileSync('/sys/fs/cgroup/cgroup.controllers', 'utf8').trim() || !readFileSync('/proc/self/cgroup', 'utf8').startsWith('0::')) {
    throw new Error('this test needs a pure cgroup v2 hierarchy: npm run test:cgroup2 runs it in a v2 guest');
  }
}
