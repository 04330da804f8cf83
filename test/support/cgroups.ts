// A pids cgroup per test (v1 here; v2 where it has the controller), like a pod's pid limit.
// A process joins it by writing its pid to cgroup.procs before it execs what runs under the
// limit (see underPidsLimit); everything it forks counts against pids.max.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { TestCgroup } from './test-cgroup';

/** Where pids cgroups are made, and whose: v2's root where it has the controller, else v1's. */
function pidsRoot(): { root: string; version: 1 | 2 } {
  try {
    if (readFileSync('/sys/fs/cgroup/cgroup.controllers', 'utf8').split(/\s+/).includes('pids')) return { root: '/sys/fs/cgroup', version: 2 };
  } catch {
    // not a v2 root with pids
  }
  return { root: '/sys/fs/cgroup/pids', version: 1 };
}

export class PidsCgroup extends TestCgroup {
  readonly version = pidsRoot().version;

  constructor(readonly name: string, readonly limit: number) {
    super(pidsRoot().root, `sexton-faults-b-${name}`);
    this.write('pids.max', String(limit));
  }

  /** Tasks (threads included) charged now. */
  current(): number {
    return Number(this.read('pids.current'));
  }

  /** How many forks or clones the limit refused so far (pids.events "max"). */
  refusals(): number {
    const m = /^max (\d+)$/m.exec(this.read('pids.events'));
    return m ? Number(m[1]) : 0;
  }

  /** argv run as a member of this cgroup: sh joins, then execs it (same pid). */
  wrap(argv: string[]): string[] {
    return ['/bin/sh', '-c', `echo $$ > ${path.join(this.dir, 'cgroup.procs')} && exec "$@"`, 'sh', ...argv];
  }
}

/** For the cgroup v2 guest's tests: fails (never skips) on a host whose hierarchy is not v2 alone. */
export function requireCgroup2(): void {
  if (!readFileSync('/sys/fs/cgroup/cgroup.controllers', 'utf8').trim() || !readFileSync('/proc/self/cgroup', 'utf8').startsWith('0::')) {
    throw new Error('this test needs a pure cgroup v2 hierarchy: npm run test:cgroup2 runs it in a v2 guest');
  }
}
