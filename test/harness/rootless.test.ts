// The harness without root: as uid 65534 the CLI and the library go through a user
// namespace and reach the same verdicts and exit codes as root; the pids limit, which needs a
// delegated cgroup, is said to be unavailable instead of failing the run; where user namespaces
// are forbidden the verdict is not-run and one line names the sysctl; `sexton --strict` works
// as a subreaper. Every command runs as nobody (test/support/nobody.ts), bounded in time.
import { beforeAll, describe, expect, test } from 'vitest';
import { parseJsonReport } from '../support/harness';
import { asNobody, NOBODY } from '../support/nobody';
import { requireBuilt } from '../support/pid1';

beforeAll(requireBuilt);

const ORPHANS = 50;

describe(`sexton harness as uid ${NOBODY}`, () => {
  test('orphans --init sexton: clean, exit 0, in a user namespace', async () => {
    const run = await asNobody(['node', 'dist/sexton.js', 'harness', 'orphans', '--init', 'sexton', '--json', '--size', String(ORPHANS)]);
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(parseJsonReport(run)).toMatchObject({
      workload: 'orphans', init: 'sexton', namespace: 'user', ran: true, verdict: 'clean', exitCode: 143, zombiesLeftAtExit: 0, zombieParents: [],
    });
    expect((parseJsonReport(run).sextonStats as { orphansReaped?: number }).orphansReaped).toBe(ORPHANS);
  });

  test('orphans --init none: init-failed, exit 1; every orphan stays a zombie', async () => {
    const run = await asNobody(['node', 'dist/sexton.js', 'harness', 'orphans', '--init', 'none', '--json', '--size', String(ORPHANS)]);
    expect(run.exitCode, run.stdout + run.stderr).toBe(1);
    const report = parseJsonReport(run);
    expect(report).toMatchObject({ namespace: 'user', ran: true, verdict: 'init-failed', zombiesLeftAtExit: ORPHANS });
    // One more at the peak is a batch's shell between its exit and the app's reap of it.
    expect(report.peakZombies).toBeGreaterThanOrEqual(ORPHANS);
    expect(report.peakZombies).toBeLessThanOrEqual(ORPHANS + 1);
  });

  test('the table says how it ran, and --help says what root and non-root can do', async () => {
    const run = await asNobody(['node', 'dist/sexton.js', 'harness', 'orphans', '--size', '10']);
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/namespace\s+user \(not privileged/);
    const help = await asNobody(['node', 'dist/sexton.js', 'harness', '--help']);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toMatch(/as any other user\s+a user namespace first/);
    expect(help.stdout).toMatch(/kernel\.apparmor_restrict_unprivileged_userns/);
    expect(help.stdout).toMatch(/sexton --strict -- COMMAND' needs neither/);
  });

  test('pid-exhaustion without a delegated cgroup: the pids limit is unavailable, said in one line; the run goes on', async () => {
    const run = await asNobody(['node', 'dist/sexton.js', 'harness', 'pid-exhaustion', '--json', '--size', '1']);
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const report = parseJsonReport(run);
    expect(report).toMatchObject({ namespace: 'user', ran: true, verdict: 'clean', eagain: 0 });
    // This machine's cgroup v2 (hybrid, no controllers) delegates nothing, and v1 is root's.
    expect(report.pidsLimitUnavailable).toMatch(/^the pids limit is unavailable: \/sys\/fs\/cgroup\/pids is not writable and no cgroup v2 at or above \S+ delegates the pids controller to uid 65534; the run goes on without it$/);
  });

  test('where user namespaces are forbidden (user.max_user_namespaces = 0): not-run, exit 4, one line naming the sysctl', async () => {
    // The limit is per user namespace: set it to 0 in one of nobody's own, drop every capability
    // there (so the harness must make a user namespace), and run the harness inside.
    const script = 'echo 0 > /proc/sys/user/max_user_namespaces && exec setpriv --bounding-set=-all --inh-caps=-all "$@"';
    const run = await asNobody(['unshare', '--user', '--map-root-user', 'sh', '-c', script, 'sh',
      'node', 'dist/sexton.js', 'harness', 'orphans', '--size', '10']);
    expect(run.exitCode, run.stdout + run.stderr).toBe(4);
    const line = run.stdout.split('\n').find((l) => l.includes('not run'));
    expect(line, run.stdout).toMatch(/not run\s+user namespaces are disabled \(user\.max_user_namespaces = 0\): enable them with `sudo sysctl -w user\.max_user_namespaces=10000`, or run as root \(unshare: unshare failed: No space left on device\)$/);
    expect(run.stdout).toMatch(/verdict\s+not-run/);
    expect(run.stdout).not.toMatch(/zombie leak under/);  // the one line, not repeated
  });
});

describe(`the library's runAsPid1 as uid ${NOBODY}`, () => {
  test("under sexton: clean; the docs' entrypoint exits 0", async () => {
    const run = await asNobody(['node', 'test/fixtures/rootless-library.cjs', 'sexton']);
    expect(parseJsonReport(run)).toMatchObject({ uid: NOBODY, ran: true, namespace: 'user', verdict: 'clean', exitCode: 0, zombiesLeftAtExit: 0 });
  });

  test('with no init: init-failed, its 20 orphans left as zombies', async () => {
    const run = await asNobody(['node', 'test/fixtures/rootless-library.cjs', 'none']);
    expect(parseJsonReport(run)).toMatchObject({ uid: NOBODY, ran: true, namespace: 'user', verdict: 'init-failed', exitCode: 0, zombiesLeftAtExit: 20 });
  });
});

describe(`sexton --strict as uid ${NOBODY} (a subreaper, no namespace)`, () => {
  test('exits 70 for a child that left an orphan, 0 for one that waits', async () => {
    const orphan = await asNobody(['node', 'dist/sexton.js', '--strict', '--', 'sh', 'test/fixtures/harness-strict-orphan.sh']);
    expect(orphan.exitCode, orphan.stderr).toBe(70);
    expect(orphan.stderr).toMatch(/strict: reaped 1 orphan\(s\)/);
    const clean = await asNobody(['node', 'dist/sexton.js', '--strict', '--', 'sh', 'test/fixtures/harness-strict-clean.sh']);
    expect(clean.exitCode, clean.stderr).toBe(0);
  });
});
