// `sexton scan` on this machine's real /proc: zombies in a plain PID namespace (no container)
// are found, grouped by their holder and told apart by reason; `--serve` is scraped over
// loopback, checked by promtool, cached about a second, and leaks no command line.
import { execa } from 'execa';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { checkMetrics, namespacePid, sample } from '../support/observability';
import { freePort } from '../support/http';
import { requireBuilt, startPid1, SEXTON, until } from '../support/pid1';
import { hostDescendants, procStat, track } from '../support/processes';
import { childrenOf } from '../../src/harness/namespace';

let dir: string;
/** A `sleep` whose command line and name carry a token that must never reach the metrics. */
let holder: string;
const TOKEN = `tok${process.pid}x${Date.now() % 100000}`;

beforeAll(() => {
  requireBuilt();
  dir = mkdtempSync(path.join(tmpdir(), 'sexton-scan-'));
  holder = path.join(dir, TOKEN);
  symlinkSync('/bin/sleep', holder);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A PID namespace whose PID 1 holds one zombie (an orphan it never reaps: no init) and whose
 * other process, pid 2, holds one of its own (an app that never waits). Resolves when both
 * zombies exist, with the two holders' host pids.
 */
async function leakingNamespace() {
  const run = await startPid1(['sh', '-c', `(sleep 0 & exec ${holder} 60.1) & sleep 0 & exec ${holder} 60.2`], { raw: true, timeoutMs: 60_000 });
  const init = await until(() => holding(run.pid1, '60.2'), 10_000, 'PID 1 holding its zombie');
  const app = await until(() => holding(run.pid1, '60.1'), 10_000, 'the app holding its zombie');
  expect(init).toBe(run.pid1);
  return { run, init, app };
}

/**
 * Host pid of the process at or below `root` running `holder ARG`, once it holds a zombie. (The
 * test's PID 1 wrapper has short-lived children of its own: counting zombies would race.)
 */
function holding(root: number, arg: string): number | undefined {
  return [root, ...hostDescendants(root)].find((pid) => {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8') !== `${holder}\0${arg}\0`) return false;
    } catch {
      return false;
    }
    return childrenOf(pid).some((child) => procStat(child)?.state === 'Z');
  });
}

async function scanCli(args: string[]) {
  const r = await execa(process.execPath, [SEXTON, 'scan', ...args], { reject: false, timeout: 30_000 });
  return { exitCode: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
}

describe('sexton scan on the real /proc', () => {
  test('zombies in a plain PID namespace: found, no container, the two reasons told apart', async () => {
    const { init, app } = await leakingNamespace();
    const r = await scanCli(['--json']);
    expect(r.exitCode, r.stderr).toBe(1);
    const { groups, scannedProcesses } = JSON.parse(r.stdout);
    expect(scannedProcesses).toBeGreaterThan(10);
    const none = { containerId: null, runtime: null, podUid: null, namespace: null, pod: null, container: null };
    expect(groups.find((g: any) => g.parent.pid === init)).toMatchObject({
      parent: { pid: init, command: `${holder} 60.2` }, zombies: 1, reason: 'pid1-does-not-reap', ...none,
    });
    expect(groups.find((g: any) => g.parent.pid === app)).toMatchObject({
      parent: { pid: app, command: `${holder} 60.1` }, zombies: 1, reason: 'parent-does-not-wait', ...none,
    });
    const table = await scanCli([]);
    expect(table.stdout).toMatch(new RegExp(`^${init}\\s+1\\s+\\d+s\\s+no container\\s+pid1-does-not-reap\\s+${holder} 60\\.2$`, 'm'));
  });

  test("the namespace's own /proc: exactly its processes; --min-age decides the exit code", async () => {
    const { init, app } = await leakingNamespace();
    const procOfNamespace = `/proc/${init}/root/proc`;
    const r = await scanCli(['--json', '--proc', procOfNamespace]);
    expect(r.exitCode, r.stderr).toBe(1);
    const json = JSON.parse(r.stdout);
    // The two holders and their two zombies; pids as the namespace numbers them.
    expect(json.scannedProcesses).toBe(4);
    expect(json.groups.map((g: any) => [g.parent.pid, g.reason]).sort()).toEqual([[1, 'pid1-does-not-reap'], [namespacePid(app), 'parent-does-not-wait']]);
    const old = await scanCli(['--proc', procOfNamespace, '--min-age', '3600']);
    expect(old.exitCode).toBe(0);
    expect(old.stdout).toMatch(/^no zombies at least 3600 s old; scanned 4 processes/);
  });

  test('under sexton as PID 1, what is left is the app that never waits, never PID 1', async () => {
    const run = await startPid1(['--', 'sh', '-c', `sleep 0 & exec ${holder} 60.1`]);
    const app = await until(() => holding(run.pid1, '60.1'), 10_000, 'the app under sexton holding its zombie');
    expect(procStat(app)?.ppid).toBe(run.pid1);
    const r = await scanCli(['--json']);
    const groups = JSON.parse(r.stdout).groups;
    expect(groups.find((g: any) => g.parent.pid === app)).toMatchObject({ zombies: 1, reason: 'parent-does-not-wait', containerId: null });
    expect(groups.find((g: any) => g.parent.pid === run.pid1)).toBeUndefined();
  });
});

describe('sexton scan --serve', () => {
  async function startServer(port: number) {
    const server = execa(process.execPath, [SEXTON, 'scan', '--serve', `127.0.0.1:${port}`], { reject: false, timeout: 60_000, killSignal: 'SIGKILL' });
    track(server.pid);
    let stderr = '';
    server.stderr?.on('data', (d) => (stderr += d));
    await until(() => stderr.includes('metrics on'), 10_000, `the scan server to listen; stderr: ${stderr}`);
    expect(stderr).toBe(`sexton scan: metrics on http://127.0.0.1:${port}/metrics\n`);
    // Wrapped: an execa result is a thenable, and returning it would await the server's end.
    return { server };
  }

  test('metrics pass promtool, name the namespace zombies by reason, no command line, cached about a second', async () => {
    const { init, app } = await leakingNamespace();
    const port = await freePort();
    const { server } = await startServer(port);
    const scrape = async () => {
      const response = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      return response.text();
    };

    // However slow the machine, scans are a second apart at least: over `elapsed` ms of scrapes
    // after the first, at most floor(elapsed / 1000) more scans, and a scrape answered from the
    // cache is the first answer verbatim.
    const scans = (text: string) => sample(text, 'sexton_scan_scans_total') as number;
    const before = Date.now();
    const first = await scrape();
    const rest = [await scrape(), await scrape(), await scrape(), await scrape()];
    const elapsed = Date.now() - before;
    expect(Math.max(...rest.map(scans)) - scans(first)).toBeLessThanOrEqual(Math.floor(elapsed / 1000));
    for (const text of rest.filter((t) => scans(t) === scans(first))) expect(text).toBe(first);
    // A second after the last scan, a scrape scans again, once.
    await new Promise((r) => setTimeout(r, 1100));
    const later = await scrape();
    expect(scans(later)).toBe(Math.max(...rest.map(scans)) + 1);

    const check = await checkMetrics(later);
    expect(check.exitCode, check.output).toBe(0);
    const host = 'namespace="",pod="",container="",pod_uid="",container_id="",runtime=""';
    expect(sample(later, `sexton_scan_zombies{${host},reason="pid1-does-not-reap"}`)).toBeGreaterThanOrEqual(1);
    expect(sample(later, `sexton_scan_zombies{${host},reason="parent-does-not-wait"}`)).toBeGreaterThanOrEqual(1);
    expect(sample(later, 'sexton_scan_processes')).toBeGreaterThan(10);

    // Neither the holders' command lines, nor their names, nor their pids.
    expect(later).not.toContain(TOKEN);
    expect(later).not.toContain('60.2');
    expect(later).not.toMatch(new RegExp(`\\b(${init}|${app})\\b`));
    // Labels: a fixed set of names, values bounded.
    for (const line of later.split('\n').filter((l) => l && !l.startsWith('#'))) {
      const labels = /\{(.*)\}/.exec(line)?.[1];
      if (!labels) continue;
      // Stuck series (any D-state process on this shared machine makes one) say how, not why.
      const how = line.startsWith('sexton_scan_stuck_') ? ['state', 'wchan', 'kill_pending'] : ['reason'];
      for (const [, name, value] of labels.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
        expect(['namespace', 'pod', 'container', 'pod_uid', 'container_id', 'runtime', ...how]).toContain(name);
        expect(value.length).toBeLessThanOrEqual(253);
      }
    }

    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    server.kill('SIGTERM');
    expect((await server).exitCode).toBe(0);
  });

  test('an address in use: one line, exit 2', async () => {
    const port = await freePort();
    const { server: first } = await startServer(port);
    const second = await scanCli(['--serve', `127.0.0.1:${port}`]);
    expect(second.exitCode).toBe(2);
    expect(second.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^sexton scan: cannot serve on 127\.0\.0\.1:\d+: .*EADDRINUSE/)]);
    first.kill('SIGTERM');
    expect((await first).exitCode).toBe(0);
  });
});
