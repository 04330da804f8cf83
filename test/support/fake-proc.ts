// A /proc tree of files, built in a temp dir, for `sexton scan --proc`: the scanner's pure tests
// (test/unit/scan/) and its command's (test/scan/) read the same one.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

export const UID = '2f3a4b5c-6d7e-4f80-9a1b-2c3d4e5f6a7b';
export const APP = 'a'.repeat(64);
const SIDECAR = 'b'.repeat(64);
export const PODMAN = 'c'.repeat(64);
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

function writeProc(proc: string, pid: number, p: Proc): void {
  const dir = path.join(proc, String(pid));
  mkdirSync(dir);
  const rest = [p.ppid, pid, pid, 0, -1, 4194560, 0, 0, 0, 0, 0, 0, 0, 0, 20, 0, 1, 0, p.startedAt * 100, 1000, 100];
  writeFileSync(path.join(dir, 'stat'), `${pid} (${p.name}) ${p.state} ${rest.join(' ')}\n`);
  writeFileSync(path.join(dir, 'cmdline'), p.cmdline ? `${p.cmdline.join('\0')}\0` : '');
  writeFileSync(path.join(dir, 'status'), `Name:\t${p.name}\nState:\t${p.state}\nNSpid:\t${(p.nspid ?? [pid]).join('\t')}\n`);
  writeFileSync(path.join(dir, 'cgroup'), p.cgroup ?? '0::/\n');
}

const kube = (id: string) => `0::/\n4:memory:/kubepods/burstable/pod${UID}/${id}\n`;

export interface FakeProc {
  /** The /proc to scan (--proc). */
  proc: string;
  /** The kubelet's pod log directory (--pods-dir). */
  podsDir: string;
  remove(): void;
}

/**
 * A /proc of files in a temp dir: an app and its sidecar in one Kubernetes pod forking and never
 * waiting, a podman container whose PID 1 never reaps, a host process, and two unreadable entries.
 */
export function makeFakeProc(): FakeProc {
  const root = mkdtempSync(path.join(tmpdir(), 'sexton-scan-proc-'));
  const proc = path.join(root, 'proc');
  mkdirSync(proc);
  writeFileSync(path.join(proc, 'uptime'), `${UPTIME}.00 1900.00\n`);
  mkdirSync(path.join(proc, 'self'));
  writeProc(proc, 1, { name: 'systemd', state: 'S', ppid: 0, startedAt: 1 });
  // An app process in a Kubernetes container (pid 7 in its namespace) forking and never waiting.
  writeProc(proc, 10, { name: 'my (odd) app', state: 'S', ppid: 1, startedAt: 100, cmdline: ['node', 'server.js', '--token=s3cret'], nspid: [10, 7], cgroup: kube(APP) });
  writeProc(proc, 11, { name: 'sh', state: 'Z', ppid: 10, startedAt: 500 });
  writeProc(proc, 12, { name: 'sh', state: 'Z', ppid: 10, startedAt: 900 });
  // The sidecar of the same pod, likewise.
  writeProc(proc, 40, { name: 'shipper', state: 'S', ppid: 1, startedAt: 100, cmdline: ['shipper', '\x1b[2J'], nspid: [40, 3], cgroup: kube(SIDECAR) });
  writeProc(proc, 41, { name: 'gzip', state: 'Z', ppid: 40, startedAt: 960 });
  // A podman container whose PID 1 is an app that never reaps orphans.
  writeProc(proc, 20, { name: 'python3', state: 'S', ppid: 1, startedAt: 200, cmdline: ['python3', 'app.py'], nspid: [20, 1], cgroup: `0::/libpod_parent/libpod-${PODMAN}\n` });
  writeProc(proc, 21, { name: 'curl', state: 'Z', ppid: 20, startedAt: 950 });
  // A host process.
  writeProc(proc, 30, { name: 'cron', state: 'S', ppid: 1, startedAt: 10, cmdline: ['/usr/sbin/cron', '-f'] });
  writeProc(proc, 31, { name: 'mail', state: 'Z', ppid: 30, startedAt: 990 });
  // Entries that cannot be read: gone (no stat) and garbled.
  mkdirSync(path.join(proc, '98'));
  mkdirSync(path.join(proc, '99'));
  writeFileSync(path.join(proc, '99', 'stat'), 'garbage\n');

  const var_log = path.join(root, 'var', 'log');
  const podsDir = path.join(var_log, 'pods');
  for (const [container, id] of [['app', APP], ['log-shipper', SIDECAR]]) {
    mkdirSync(path.join(podsDir, `shop_checkout-7d9f8b6c5-x2x9k_${UID}`, container), { recursive: true });
    mkdirSync(path.join(var_log, 'containers'), { recursive: true });
    writeFileSync(path.join(var_log, 'containers', `checkout-7d9f8b6c5-x2x9k_shop_${container}-${id}.log`), '');
  }
  return { proc, podsDir, remove: () => rmSync(root, { recursive: true, force: true }) };
}
