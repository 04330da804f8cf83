// An unkillable process on demand: a cgroup v1 freezer cgroup per test. A member frozen and
// then SIGKILLed stays in state D with SIGKILL pending until the cgroup is thawed, and its PID
// namespace cannot be torn down meanwhile (a pod stuck in Terminating). Every cgroup is named
// after the branch and the test process, thawed and removed in cleanup; members are signalled
// by pid, only while their start time is the one seen when they joined.
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { hostDescendants, procStat, readIfThere } from './processes';
import { until } from './pid1';

const ROOT = '/sys/fs/cgroup/freezer';
let made = 0;
const live = new Set<Freezer>();

/** Fails (never skips) where there is no cgroup v1 freezer to make a stuck process with. */
export function requireFreezer(): void {
  if (!existsSync(path.join(ROOT, 'cgroup.procs'))) throw new Error(`${ROOT} is missing: these tests need the cgroup v1 freezer`);
}

export class Freezer {
  readonly dir: string;
  private readonly seen = new Map<number, number>();

  constructor(name: string) {
    this.dir = path.join(ROOT, `sexton-stuck-${name}-${process.pid}-${++made}`);
    mkdirSync(this.dir);
    live.add(this);
  }

  /** argv run as a member: sh joins, then execs it (same pid); its children join too. */
  wrap(argv: string[]): string[] {
    return ['/bin/sh', '-c', `echo $$ > ${path.join(this.dir, 'cgroup.procs')} && exec "$@"`, 'sh', ...argv];
  }

  /** Shell text that moves the shell running it into the cgroup. */
  get joinShell(): string {
    return `echo $$ > ${path.join(this.dir, 'cgroup.procs')}`;
  }

  /** Moves a running process (say, one inside a container) into this cgroup. */
  add(pid: number): void {
    writeFileSync(path.join(this.dir, 'cgroup.procs'), String(pid));
    this.procs();
  }

  procs(): number[] {
    let pids: number[] = [];
    try {
      pids = readFileSync(path.join(this.dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
    } catch {
      return [];
    }
    for (const pid of pids) {
      const start = procStat(pid)?.startTime;
      if (start !== undefined && !this.seen.has(pid)) this.seen.set(pid, start);
    }
    return pids;
  }

  state(): string {
    return readFileSync(path.join(this.dir, 'freezer.state'), 'utf8').trim();
  }

  async freeze(): Promise<void> {
    this.procs();
    writeFileSync(path.join(this.dir, 'freezer.state'), 'FROZEN');
    await until(() => this.state() === 'FROZEN', 10_000, `${this.dir} to freeze`);
  }

  thaw(): void {
    try {
      writeFileSync(path.join(this.dir, 'freezer.state'), 'THAWED');
    } catch {
      // removed already
    }
  }

  /** SIGKILL to every member (each is ours: it joined our cgroup). */
  killMembers(): void {
    for (const pid of this.procs()) {
      if (procStat(pid)?.startTime !== this.seen.get(pid)) continue;
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }

  /** Thaws, SIGKILLs whatever is still a member and removes the cgroup. */
  async remove(): Promise<void> {
    live.delete(this);
    for (let attempt = 0; attempt < 100; attempt++) {
      this.thaw();
      this.killMembers();
      try {
        rmdirSync(this.dir);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
        await new Promise((r) => setTimeout(r, 50));  // members still being torn down
      }
    }
    throw new Error(`cannot remove ${this.dir}: members ${this.procs().join(' ')}`);
  }
}

/**
 * The `sleep 65` below host pid `ancestor`, once asleep in the kernel's timer wait, frozen in a
 * freezer named `label`: a process SIGKILL cannot end. Returns its pid and the freezer that thaws it.
 */
export async function freezeSleep65(ancestor: number, label: string): Promise<{ pid: number; freezer: Freezer }> {
  const sleeper = await until(() => hostDescendants(ancestor).find((pid) => readIfThere(`/proc/${pid}/cmdline`) === 'sleep\x0065\x00'), 15_000, 'the grandchild');
  await until(() => readIfThere(`/proc/${sleeper}/wchan`) === 'hrtimer_nanosleep', 10_000, 'the grandchild asleep');
  const freezer = new Freezer(label);
  freezer.add(sleeper);
  await freezer.freeze();
  return { pid: sleeper, freezer };
}

/** Removes every freezer cgroup a test made and did not remove (afterEach). */
export async function removeFreezers(): Promise<void> {
  for (const f of [...live]) await f.remove();
}
