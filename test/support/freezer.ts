// An unkillable process on demand: a cgroup v1 freezer cgroup per test. A member frozen and
// then SIGKILLed stays in state D with SIGKILL pending until the cgroup is thawed, and its PID
// namespace cannot be torn down meanwhile (a pod stuck in Terminating). Every cgroup is named
// after the branch and the test process, thawed and removed in cleanup (test-cgroup.ts).
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { hostDescendants, readIfThere } from './processes';
import { until } from './pid1';
import { removeCgroups, TestCgroup } from './test-cgroup';

const ROOT = '/sys/fs/cgroup/freezer';
const live = new Set<Freezer>();

/** Fails (never skips) where there is no cgroup v1 freezer to make a stuck process with. */
export function requireFreezer(): void {
  if (!existsSync(path.join(ROOT, 'cgroup.procs'))) throw new Error(`${ROOT} is missing: these tests need the cgroup v1 freezer`);
}

export class Freezer extends TestCgroup {
  constructor(name: string) {
    super(ROOT, `sexton-stuck-${name}`);
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
    this.write('cgroup.procs', String(pid));
  }

  state(): string {
    return this.read('freezer.state').trim();
  }

  async freeze(): Promise<void> {
    this.write('freezer.state', 'FROZEN');
    await until(() => this.state() === 'FROZEN', 10_000, `${this.dir} to freeze`);
  }

  thaw(): void {
    try {
      this.write('freezer.state', 'THAWED');
    } catch {
      // removed already
    }
  }

  /** A frozen member, SIGKILLed, dies only once thawed. */
  protected override release(): void {
    this.thaw();
  }

  override async remove(): Promise<void> {
    live.delete(this);
    await super.remove();
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
  await removeCgroups([...live]);
}
