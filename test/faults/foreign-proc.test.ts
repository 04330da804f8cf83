// A /proc that is not sexton's namespace's. `unshare --pid --fork` without
// --mount-proc leaves the host's /proc in place: its pids are other processes here and its
// command lines are other tenants'. sexton must warn once, name no process, and still stop
// what is left of its namespace. Also a run with no /proc at all (a tmpfs over it).
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { requireBuilt, SEXTON } from '../support/pid1';
import { track } from '../support/processes';
import { inPidNamespace } from '../../src/harness/namespace';

const NODE = process.execPath;

beforeAll(requireBuilt);

const WARNING = "sexton: /proc does not show sexton's own PID namespace (mount one, e.g. unshare --mount-proc): sexton reaps and forwards signals, but scans and names no process";

type ProcKind = 'host /proc' | 'no /proc' | 'own /proc';

/** sexton as PID 1 of a new PID namespace whose /proc is the host's, absent, or its own. */
async function inNamespace(kind: ProcKind, args: string[]) {
  const sexton = [NODE, SEXTON, ...args];
  const argv = kind === 'host /proc' ? ['unshare', '--pid', '--fork', '--kill-child', '--', ...sexton]
    : kind === 'own /proc' ? inPidNamespace(sexton)
      // A private mount namespace with a tmpfs over /proc: nothing there at all.
      : ['unshare', '--mount', '--pid', '--fork', '--kill-child', '--', 'sh', '-c', 'mount -t tmpfs none /proc && exec "$@"', 'sh', ...sexton];
  const begun = Date.now();
  const proc = execa(argv[0], argv.slice(1), { reject: false, stdin: 'ignore', timeout: 30_000, killSignal: 'SIGKILL' });
  track(proc.pid);
  const result = await proc;
  return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr, ms: Date.now() - begun };
}

/** Every command line of a process this test's host can see that sexton could have leaked. */
function hostCommandLines(): string[] {
  const own = readFileSync('/proc/self/cmdline', 'utf8').split('\0').filter(Boolean).join(' ');
  const parent = readFileSync(`/proc/${process.ppid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  return [own, parent];
}

function expectNothingNamed(stderr: string): void {
  expect(stderr.split('\n').filter((l) => l === WARNING)).toHaveLength(1);
  expect(stderr).not.toMatch(/killing pid|process\(es\) left/);
  for (const line of hostCommandLines()) expect(stderr).not.toContain(line);
  // Orphans are counted, not named: comm of a host pid would be someone else's.
  expect(stderr).not.toMatch(/orphans: (?!\d+ unnamed\))/);
}

describe.each(['host /proc', 'no /proc'] as const)('with %s', (kind) => {
  it("the issue's --strict run: warns once, names nothing, ends as it does with its own /proc", async () => {
    const args = ['--strict', '--', 'sh', '-c', 'sleep 0.2 & exit 0'];
    const [run, reference] = await Promise.all([inNamespace(kind, args), inNamespace('own /proc', args)]);
    expectNothingNamed(run.stderr);
    // The sleep was a real orphan: --strict says so (70) with or without a /proc to read.
    expect(reference.exitCode).toBe(70);
    expect(run.exitCode).toBe(reference.exitCode);
    expect(run.stderr).toMatch(/^sexton: strict: reaped 1 orphan\(s\) the child's processes left behind$/m);
    expect(run.ms).toBeLessThan(5000);  // the sleep got TERM at once, not KILL at 10 s
  });

  it('without --strict the same run exits 0', async () => {
    const run = await inNamespace(kind, ['--', 'sh', '-c', 'sleep 0.2 & exit 0']);
    expectNothingNamed(run.stderr);
    expect(run.exitCode).toBe(0);
  });

  it('a leftover daemon still gets TERM once the main child is gone', async () => {
    const daemon = 'trap "echo daemon-got-TERM; exit 0" TERM; echo daemon-ready; while :; do sleep 0.05; done';
    const run = await inNamespace(kind, ['-t', '5', '--', 'sh', '-c', `sh -c '${daemon}' & sleep 0.3; exit 0`]);
    expectNothingNamed(run.stderr);
    expect(run.stdout).toContain('daemon-ready');
    expect(run.stdout).toContain('daemon-got-TERM');
    expect(run.stderr).toMatch(/^sexton: main child is gone; sending TERM to whatever is left \(unseen: \/proc is not this namespace's\), grace period 5s$/m);
    expect(run.exitCode).toBe(0);
    expect(run.ms).toBeLessThan(4000);  // well within the grace period
  });

  it('a leftover that ignores TERM ends with the namespace at the grace period', async () => {
    const daemon = 'trap "" TERM; echo daemon-ready; while :; do sleep 0.05; done';
    const run = await inNamespace(kind, ['-t', '1', '--', 'sh', '-c', `sh -c '${daemon}' & sleep 0.3; exit 0`]);
    expectNothingNamed(run.stderr);
    expect(run.stdout).toContain('daemon-ready');
    expect(run.ms).toBeGreaterThanOrEqual(1000 + 300);
    expect(run.ms).toBeLessThan(4000);
  });
});
