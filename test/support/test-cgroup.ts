// A cgroup made for one test: every member is the test's, so its removal SIGKILLs them. It does
// so in remove() itself, not in a later hook: a hook that throws skips those after it (a failed
// test once left 9 processes per cgroup). A pid is only a number, though: see killMembers.
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { procStat } from './processes';

let made = 0;

export class TestCgroup {
  readonly dir: string;

  /** Makes ROOT/NAME-TESTPID-N: unique per test process, and named for the test that left it. */
  constructor(root: string, name: string) {
    this.dir = path.join(root, `${name}-${process.pid}-${++made}`);
    mkdirSync(this.dir);
  }

  read(file: string): string {
    return readFileSync(path.join(this.dir, file), 'utf8');
  }

  protected write(file: string, value: string): void {
    writeFileSync(path.join(this.dir, file), value);
  }

  /** Members now; none once the cgroup is gone. */
  procs(): number[] {
    try {
      return this.read('cgroup.procs').split('\n').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  }

  /**
   * SIGKILLs every member. v2's cgroup.kill hits members alone, atomically. By pid (v1), a member
   * may die and its pid go to a process not ours between the read of cgroup.procs and the kill:
   * a pid is killed only if it was listed again after its start time was read, and still has that
   * start time; then that process was a member at the second listing.
   */
  killMembers(): void {
    if (existsSync(path.join(this.dir, 'cgroup.kill'))) {
      try {
        return this.write('cgroup.kill', '1');
      } catch {
        // refused in a threaded cgroup (EOPNOTSUPP): by pid, then
      }
    }
    const started = new Map(this.procs().map((pid) => [pid, procStat(pid)?.startTime]));
    for (const pid of this.procs()) {
      const start = started.get(pid);
      if (start === undefined || procStat(pid)?.startTime !== start) continue;
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }

  /** What must happen before members can die (a frozen one cannot). */
  protected release(): void {}

  /** Ends the members and removes the cgroup, once the last of them have left it (5 s at most). */
  async remove(): Promise<void> {
    const deadline = Date.now() + 5000;
    for (;;) {
      this.release();
      // Again each time: a member may have forked while the others died.
      this.killMembers();
      try {
        rmdirSync(this.dir);
        return;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') return;
        if (Date.now() > deadline) throw new Error(`cannot remove ${this.dir}: ${code}; members: ${this.procs().join(' ')}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }
}

/** Removes every cgroup, each even when an earlier one cannot be (its error is thrown at the end). */
export async function removeCgroups(cgroups: TestCgroup[]): Promise<void> {
  const errors: unknown[] = [];
  for (const cgroup of cgroups) await cgroup.remove().catch((error) => errors.push(error));
  if (errors.length > 0) throw errors[0];
}
