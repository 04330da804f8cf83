// `sexton scan --proc DIR` over a /proc tree of files built in a temp dir: parsing, grouping,
// attribution, ages, skipped entries, exit codes and bad usage. (The real /proc and real
// containers are scanned in test/scan/scan.test.ts and test/containers/scan.test.ts.)
import { execa } from 'execa';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { scan } from '../../../src/scan/scan';
import { requireBuilt, SEXTON } from '../../support/pid1';

const UID = '2f3a4b5c-6d7e-4f80-9a1b-2c3d4e5f6a7b';
const APP = 'a'.repeat(64);
const SIDECAR = 'b'.repeat(64);
const PODMAN = 'c'.repeat(64);
const UPTIME = 1000;

interface Proc {
  name: string;
  state: string;
  ppid: number;
  /** Seconds since boot the process started. */
  startedAt: number;
  cmdline?: string[];
  nspid?: number[];
  cgroup?: string;
}

let root: string;
let proc: string;
let podsDir: string;

function writeProc(pid: number, p: Proc): void {
  const dir = path.join(proc, String(pid));
  mkdirSync(dir);
  const rest = [p.ppid, pid, pid, 0, -1, 4194560, 0, 0, 0, 0, 0, 0, 0, 0, 20, 0, 1, 0, p.startedAt * 100, 1000, 100];
  writeFileSync(path.join(dir, 'stat'), `${pid} (${p.name}) ${p.state} ${rest.join(' ')}\n`);
  writeFileSync(path.join(dir, 'cmdline'), p.cmdline ? `${p.cmdline.join('\0')}\0` : '');
  writeFileSync(path.join(dir, 'status'), `Name:\t${p.name}\nState:\t${p.state}\nNSpid:\t${(p.nspid ?? [pid]).join('\t')}\n`);
  writeFileSync(path.join(dir, 'cgroup'), p.cgroup ?? '0::/\n');
}

const kube = (id: string) => `0::/\n4:memory:/kubepods/burstable/pod${UID}/${id}\n`;

beforeAll(() => {
  requireBuilt();
  root = mkdtempSync(path.join(tmpdir(), 'sexton-scan-proc-'));
  proc = path.join(root, 'proc');
  mkdirSync(proc);
  writeFileSync(path.join(proc, 'uptime'), `${UPTIME}.00 1900.00\n`);
  mkdirSync(path.join(proc, 'self'));
  writeProc(1, { name: 'systemd', state: 'S', ppid: 0, startedAt: 1 });
  // An app process in a Kubernetes container (pid 7 in its namespace) forking and never waiting.
  writeProc(10, { name: 'my (odd) app', state: 'S', ppid: 1, startedAt: 100, cmdline: ['node', 'server.js', '--token=s3cret'], nspid: [10, 7], cgroup: kube(APP) });
  writeProc(11, { name: 'sh', state: 'Z', ppid: 10, startedAt: 500 });
  writeProc(12, { name: 'sh', state: 'Z', ppid: 10, startedAt: 900 });
  // The sidecar of the same pod, likewise.
  writeProc(40, { name: 'shipper', state: 'S', ppid: 1, startedAt: 100, cmdline: ['shipper', '\x1b[2J'], nspid: [40, 3], cgroup: kube(SIDECAR) });
  writeProc(41, { name: 'gzip', state: 'Z', ppid: 40, startedAt: 960 });
  // A podman container whose PID 1 is an app that never reaps orphans.
  writeProc(20, { name: 'python3', state: 'S', ppid: 1, startedAt: 200, cmdline: ['python3', 'app.py'], nspid: [20, 1], cgroup: `0::/libpod_parent/libpod-${PODMAN}\n` });
  writeProc(21, { name: 'curl', state: 'Z', ppid: 20, startedAt: 950 });
  // A host process.
  writeProc(30, { name: 'cron', state: 'S', ppid: 1, startedAt: 10, cmdline: ['/usr/sbin/cron', '-f'] });
  writeProc(31, { name: 'mail', state: 'Z', ppid: 30, startedAt: 990 });
  // Entries that cannot be read: gone (no stat) and garbled.
  mkdirSync(path.join(proc, '98'));
  mkdirSync(path.join(proc, '99'));
  writeFileSync(path.join(proc, '99', 'stat'), 'garbage\n');

  const var_log = path.join(root, 'var', 'log');
  podsDir = path.join(var_log, 'pods');
  for (const [container, id] of [['app', APP], ['log-shipper', SIDECAR]]) {
    mkdirSync(path.join(podsDir, `shop_checkout-7d9f8b6c5-x2x9k_${UID}`, container), { recursive: true });
    mkdirSync(path.join(var_log, 'containers'), { recursive: true });
    writeFileSync(path.join(var_log, 'containers', `checkout-7d9f8b6c5-x2x9k_shop_${container}-${id}.log`), '');
  }
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('scan()', () => {
  test('groups zombies by parent, attributes each group, tells the reasons apart', () => {
    const r = scan({ procRoot: proc, podsDir, minAgeSeconds: 0 });
    expect(r.scannedProcesses).toBe(10);
    expect(r.unreadableProcesses).toBe(2);
    expect(r.podsDirFound).toBe(true);
    const byPid = Object.fromEntries(r.groups.map((g) => [g.parent.pid, g]));
    expect(Object.keys(byPid).sort()).toEqual(['10', '20', '30', '40']);
    expect(byPid[10]).toMatchObject({
      parent: { pid: 10, command: 'node server.js --token=s3cret' }, zombies: 2, oldestAgeSeconds: 500,
      containerId: APP, runtime: null, podUid: UID, namespace: 'shop', pod: 'checkout-7d9f8b6c5-x2x9k', container: 'app',
      reason: 'parent-does-not-wait',
    });
    expect(byPid[40]).toMatchObject({ zombies: 1, oldestAgeSeconds: 40, container: 'log-shipper', reason: 'parent-does-not-wait' });
    expect(byPid[20]).toMatchObject({
      zombies: 1, oldestAgeSeconds: 50, containerId: PODMAN, runtime: 'podman', podUid: null, namespace: null, reason: 'pid1-does-not-reap',
    });
    expect(byPid[30]).toMatchObject({ zombies: 1, oldestAgeSeconds: 10, containerId: null, podUid: null, reason: 'parent-does-not-wait' });
    // The biggest leak first.
    expect(r.groups[0].parent.pid).toBe(10);
  });

  test('--min-age leaves out parents whose oldest zombie is younger', () => {
    expect(scan({ procRoot: proc, podsDir, minAgeSeconds: 45 }).groups.map((g) => g.parent.pid).sort()).toEqual([10, 20]);
    expect(scan({ procRoot: proc, podsDir, minAgeSeconds: 501 }).groups).toEqual([]);
  });
});

async function cli(args: string[]) {
  const r = await execa(process.execPath, [SEXTON, 'scan', ...args], { reject: false, timeout: 20_000 });
  return { exitCode: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
}

describe('sexton scan --proc', () => {
  test('--json: the groups, exit 1', async () => {
    const r = await cli(['--proc', proc, '--pods-dir', podsDir, '--json']);
    expect(r.exitCode, r.stderr).toBe(1);
    const json = JSON.parse(r.stdout);
    expect(json).toMatchObject({ scannedProcesses: 10, unreadableProcesses: 2 });
    expect(json.durationMs).toEqual(expect.any(Number));
    expect(json.groups.find((g: any) => g.parent.pid === 10)).toMatchObject({ namespace: 'shop', pod: 'checkout-7d9f8b6c5-x2x9k', container: 'app' });
  });

  test('the table names the pod, says why, and escapes command lines', async () => {
    const r = await cli([`--proc=${proc}`, `--pods-dir=${podsDir}`]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/^10\s+2\s+8m\s+shop\/checkout-7d9f8b6c5-x2x9k\/app\s+parent-does-not-wait\s+node server\.js/m);
    expect(r.stdout).toMatch(/^20\s+1\s+50s\s+podman cccccccccccc\s+pid1-does-not-reap\s+python3 app\.py$/m);
    expect(r.stdout).toMatch(/^30\s+1\s+10s\s+no container\s/m);
    expect(r.stdout).toContain('shipper \\x1b[2J');
    expect(r.stdout).not.toContain('\x1b');
    expect(r.stdout).toContain('5 zombies held by 4 parents; scanned 10 processes');
    expect(r.stdout).toContain('(2 unreadable, skipped)');
  });

  test('no zombie old enough: exit 0', async () => {
    const r = await cli(['--proc', proc, '--pods-dir', podsDir, '--min-age', '600']);
    expect(r).toMatchObject({ exitCode: 0, stderr: '' });
    expect(r.stdout).toMatch(/^no zombies at least 600 s old; scanned 10 processes/);
  });

  test('no pods directory: ids only, said once', async () => {
    const r = await cli(['--proc', proc, '--pods-dir', path.join(root, 'nowhere'), '--json']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/no kubelet pod directory at .*nowhere: pods are named by id only/)]);
    const app = JSON.parse(r.stdout).groups.find((g: any) => g.parent.pid === 10);
    expect(app).toMatchObject({ podUid: UID, containerId: APP, namespace: null, pod: null, container: null });
  });
});

describe('bad usage: exit 2, one escaped and truncated line, no stack trace', () => {
  const cases: [string, string[], RegExp][] = [
    ['unknown flag', ['--frobnicate'], /^sexton scan: unknown argument '--frobnicate'/],
    ['stray argument', ['pods'], /^sexton scan: unknown argument 'pods'/],
    ['negative age', ['--min-age', '-5'], /--min-age needs seconds/],
    ['age is not a number', ['--min-age=soon'], /--min-age needs seconds.*'soon'/],
    ['missing value', ['--pods-dir'], /--pods-dir needs a value/],
    ['bad address', ['--serve', 'localhost'], /--serve needs HOST:PORT, not 'localhost'/],
    ['port out of range', ['--serve', '127.0.0.1:70000'], /--serve needs HOST:PORT/],
    ['json and serve', ['--json', '--serve', '127.0.0.1:1'], /--json and --serve do not go together/],
    ['no such proc directory', ['--proc', '/nonexistent-proc'], /cannot read \/nonexistent-proc: ENOENT/],
    ['control characters', ['--x\x1b]0;pwned\x07'], /'--x\\x1b\]0;pwned\\x07'/],
    ['a huge argument', [`--${'y'.repeat(10_000)}`], /unknown argument '--y+…'/],
  ];
  for (const [what, args, message] of cases) {
    test(what, async () => {
      const r = await cli(args);
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trim().split('\n');
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(message);
      expect(lines[0].length).toBeLessThan(160);
      expect(lines[0]).not.toMatch(/[\x00-\x1f]/);
    });
  }

  test('--help: usage on stdout, exit 0', async () => {
    const r = await cli(['--help']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^Usage: sexton scan \[--json\] \[--min-age SECONDS\] \[--proc DIR\] \[--pods-dir DIR\]/);
  });
});
