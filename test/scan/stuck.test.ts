// `sexton scan --stuck` on this machine's real /proc: a process frozen by the cgroup v1 freezer
// and SIGKILLed stays in state D with SIGKILL pending (what makes a pod stay Terminating); the
// scan names it with its wait channel and system call, in the table, the JSON and `--serve`'s
// metrics, and no longer once the cgroup is thawed.
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { Freezer, removeFreezers, requireFreezer } from '../support/freezer';
import { checkMetrics, namespacePid, sample } from '../support/observability';
import { freePort } from '../support/http';
import { requireBuilt, startPid1, SEXTON, until } from '../support/pid1';
import { hostDescendants, procStat } from '../support/processes';
import { track } from '../support/processes';

beforeAll(() => {
  requireBuilt();
  requireFreezer();
});
afterEach(removeFreezers);

async function scanCli(args: string[]) {
  const r = await execa(process.execPath, [SEXTON, 'scan', ...args], { reject: false, timeout: 30_000 });
  return { exitCode: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
}

const cmdlineIs = (pid: number, text: string) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8') === text;
  } catch {
    return false;
  }
};

const sleeping = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/wchan`, 'utf8') === 'hrtimer_nanosleep';
  } catch {
    return false;
  }
};

/**
 * A PID namespace whose PID 1 (a shell) waits for two sleeps in a freezer cgroup: one that will
 * be frozen and SIGKILLed (`killed`), one only frozen (`frozen`, state D too, no kill pending).
 */
async function stuckNamespace(freezer: Freezer) {
  const join = freezer.joinShell;
  const script = `sh -c '${join} && exec sleep 61.1' & sh -c '${join} && exec sleep 61.2' & wait; exec sleep 30`;
  const run = await startPid1(['sh', '-c', script], { raw: true, timeoutMs: 60_000 });
  const find = (arg: string) => hostDescendants(run.pid1).find((pid) => cmdlineIs(pid, `sleep\0${arg}\0`));
  const killed = await until(() => find('61.1'), 10_000, 'the first sleep');
  const frozen = await until(() => find('61.2'), 10_000, 'the second sleep');
  await until(() => freezer.procs().length === 2, 10_000, 'both sleeps in the freezer cgroup');
  // Frozen earlier (still loading), a sleep would wait in __refrigerator, not in its sleep.
  await until(() => [killed, frozen].every(sleeping), 10_000, 'both sleeps asleep in nanosleep');
  await freezer.freeze();
  process.kill(killed, 'SIGKILL');
  await until(() => procStat(killed)?.state === 'D', 10_000, 'the killed sleep in state D');
  return { run, killed, frozen };
}

describe('sexton scan --stuck', () => {
  test('a frozen, SIGKILLed process: pid, state D, wchan, syscall, kill pending; thawed, it is gone and the scan exits 0', async () => {
    const freezer = new Freezer('scan');
    const { run, killed, frozen } = await stuckNamespace(freezer);
    // The node's /proc: found among everything else, not in a container.
    const r = await scanCli(['--stuck', '--json', '--min-age', '0.3']);
    expect(r.exitCode, r.stderr).toBe(1);
    const json = JSON.parse(r.stdout);
    expect(json.minAgeSeconds).toBe(0.3);
    const none = { containerId: null, runtime: null, podUid: null, namespace: null, pod: null, container: null, mount: null };
    expect(json.stuck.find((s: any) => s.pid === killed)).toMatchObject({
      command: 'sleep', state: 'D', wchan: 'hrtimer_nanosleep', syscall: 'clock_nanosleep', killPending: true, ...none,
    });
    expect(json.stuck.find((s: any) => s.pid === killed).seenForSeconds).toBeGreaterThanOrEqual(0.3);
    expect(json.stuck.find((s: any) => s.pid === frozen)).toMatchObject({ state: 'D', killPending: false });

    // The namespace's own /proc: exactly these two, as it numbers them; the table groups them.
    const own = `/proc/${run.pid1}/root/proc`;
    const table = await scanCli(['--stuck', '--proc', own, '--min-age', '0.2']);
    expect(table.exitCode, table.stderr).toBe(1);
    const rows = table.stdout.split('\n');
    expect(rows[0]).toMatch(/^WHERE\s+PID\s+STATE\s+KILL\s+WCHAN\s+SYSCALL\s+MOUNT\s+COMMAND$/);
    expect(rows).toContainEqual(expect.stringMatching(new RegExp(`^no container\\s+${namespacePid(killed)}\\s+D\\s+pending\\s+hrtimer_nanosleep\\s+clock_nanosleep\\s+-\\s+sleep$`)));
    expect(rows).toContainEqual(expect.stringMatching(new RegExp(`^no container\\s+${namespacePid(frozen)}\\s+D\\s+-\\s+hrtimer_nanosleep`)));
    expect(table.stdout).toMatch(/^2 process\(es\) stuck for 0\.2 s in 1 place\(s\)/m);

    freezer.thaw();
    await until(() => procStat(killed) === undefined, 10_000, 'the killed sleep to die once thawed');
    process.kill(frozen, 'SIGKILL');
    await until(() => procStat(frozen) === undefined, 10_000, 'the other sleep to die');
    const after = await scanCli(['--stuck', '--proc', own, '--min-age', '0.2']);
    expect(after.exitCode, after.stdout).toBe(0);
    expect(after.stdout).toMatch(/^no process stuck for 0\.2 s \(state D or SIGKILL pending\); scanned 1 processes/);
  });

  test('bad usage: one line, exit 2', async () => {
    for (const args of [['--stuck', '--min-age', 'soon'], ['--stuck', '--serve', '127.0.0.1:0'], ['--stuck', '--min-age', '100000']]) {
      const r = await scanCli(args);
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^sexton scan: /);
    }
  });

  test('--serve: stuck processes by state, wait channel and pending kill; promtool-valid; no pid or command', async () => {
    const freezer = new Freezer('serve');
    const { killed } = await stuckNamespace(freezer);
    const port = await freePort();
    const server = execa(process.execPath, [SEXTON, 'scan', '--serve', `127.0.0.1:${port}`, '--min-age', '0.5'], { reject: false, timeout: 60_000, killSignal: 'SIGKILL' });
    track(server.pid);
    let stderr = '';
    server.stderr?.on('data', (d) => (stderr += d));
    await until(() => stderr.includes('metrics on'), 10_000, 'the scan server to listen');
    const scrape = async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const series = 'sexton_scan_stuck_processes{namespace="",pod="",container="",pod_uid="",container_id="",runtime="",state="D",wchan="hrtimer_nanosleep",kill_pending="true"}';
    // The first scan sees it for the first time: not yet stuck for --min-age.
    expect(sample(await scrape(), series) ?? 0).toBe(0);
    // Stuck once a scan --min-age (0.5 s) later sees it again: scans are a second apart at least,
    // so that is the next scan after the cache's second, whenever a loaded machine runs it.
    const later = await until(async () => {
      const text = await scrape();
      return (sample(text, series) ?? 0) >= 1 && text;
    }, 10_000, 'the frozen process to count as stuck');
    expect(sample(later, series)).toBeGreaterThanOrEqual(1);
    const check = await checkMetrics(later);
    expect(check.exitCode, check.output).toBe(0);
    expect(later).not.toMatch(new RegExp(`\\b${killed}\\b|61\\.1`));
    server.kill('SIGTERM');
    expect((await server).exitCode).toBe(0);
  });
});
