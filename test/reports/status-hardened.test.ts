// `sexton status` where pods are hardened: no writable filesystem, a /run shared between PID
// namespaces, callers of another uid, the socket turned off. sexton runs as PID 1 of a fresh
// PID namespace; the client runs inside that namespace with nsenter, as `kubectl exec` would.
import { execa } from 'execa';
import { chmodSync, copyFileSync, existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requireBuilt, startPid1, SEXTON, until } from '../support/pid1';
import { freshDir, leakingApp, removeDirs, status, unixSocketInode } from '../support/observability';

beforeAll(requireBuilt);
afterEach(() => {
  removeDirs();
});

/**
 * The status client another user can run: the static native one, copied where any uid reaches it
 * (the checkout, and the Node line CI runs on within it, may be under a directory only root can
 * enter).
 */
function reachableStatusClient(): string {
  const dir = freshDir();
  chmodSync(dir, 0o755);
  const client = path.join(dir, 'sexton-status');
  copyFileSync(realpathSync(path.join(path.dirname(SEXTON), 'sexton-status')), client);
  chmodSync(client, 0o755);
  return client;
}

/** `sexton status ARGS` inside PID 1's PID and mount namespaces, optionally as another user. */
async function statusInside(pid1: number, args: string[] = [], { uid }: { uid?: number } = {}) {
  const asUser = uid === undefined ? [] : ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups'];
  const client = uid === undefined ? [process.execPath, SEXTON, 'status'] : [reachableStatusClient()];
  const result = await execa('nsenter', ['--target', String(pid1), '--pid', '--mount', '--', ...asUser, ...client, ...args], {
    reject: false, timeout: 10_000, stdin: 'ignore', env: { SEXTON_STATUS_SOCKET: '' },
  });
  return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
}

const defaultName = (pid1: number) => `@sexton-status.${statSync(`/proc/${pid1}/ns/pid`).ino}`;
const threads = (pid: number) => Number(/^Threads:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);

describe('a read-only root filesystem with no writable /run or /tmp', () => {
  it('answers over the abstract socket, with no warning at start, and starts no thread to do it', async () => {
    // /run and /tmp made read-only in PID 1's own mount namespace (bound onto themselves, then
    // remounted read-only, so a checkout under /tmp stays reachable): no file can be created.
    const readOnly = (dir: string) => `mount --bind ${dir} ${dir} && mount -o remount,bind,ro ${dir}`;
    const run = await startPid1(
      ['/bin/sh', '-c', `${readOnly('/run')} && ${readOnly('/tmp')} && exec "$@"`, 'sh',
        process.execPath, SEXTON, '--', ...leakingApp(0, 0)],
      { raw: true },
    );
    await run.waitFor('ready');
    await until(() => unixSocketInode(run.pid1, defaultName(run.pid1)) !== undefined, 5000, 'the abstract status socket');
    const before = threads(run.pid1);
    for (let i = 0; i < 3; i++) {
      const answer = await statusInside(run.pid1, ['--json']);
      expect(answer.exitCode, answer.stderr).toBe(0);
      expect(JSON.parse(answer.stdout)).toMatchObject({ pid: 1, role: 'init', phase: 'running' });
    }
    // PID 1 rule: answering created no thread (no libuv pool work, no DNS).
    expect(threads(run.pid1)).toBe(before);
    expect(run.stderr()).not.toMatch(/status socket/);
  });
});

describe('only its own namespace, only trusted callers', () => {
  it('sextons sharing a network namespace each answer their own PID namespace by default', async () => {
    const a = await startPid1(['--', 'sh', '-c', 'echo ready; exec sleep 30 # A']);
    const b = await startPid1(['--', 'sh', '-c', 'echo ready; exec sleep 30 # B']);
    await a.waitFor('ready');
    await b.waitFor('ready');
    for (const [run, mark] of [[a, 'A'], [b, 'B']] as const) {
      await until(() => unixSocketInode(run.pid1, defaultName(run.pid1)) !== undefined, 5000, `${mark}'s status socket`);
      const answer = await statusInside(run.pid1, ['--json']);
      expect(answer.exitCode, answer.stderr).toBe(0);
      expect(JSON.parse(answer.stdout).mainChild.command).toContain(`# ${mark}`);
    }
  });

  it("refuses the sexton of another PID namespace on a shared socket path, in one line, exit 4", async () => {
    const shared = path.join(freshDir(), 'sexton.sock');  // a /run both namespaces share
    const a = await startPid1(['--status-socket', shared, '--', 'sh', '-c', 'echo ready; exec sleep 30']);
    await a.waitFor('ready');
    await until(() => existsSync(shared), 5000, "A's socket");
    const b = await startPid1(['--status-socket', 'none', '--', 'sh', '-c', 'echo ready; exec sleep 30']);
    await b.waitFor('ready');
    // In B's namespace, the file (the hostPath both mount) leads to A, who is not visible there.
    const fromB = await statusInside(b.pid1, ['--socket', shared]);
    expect(fromB.exitCode).toBe(4);
    expect(fromB.stdout).toBe('');
    expect(fromB.stderr).toBe(`sexton status: the process answering on ${shared} is not trusted: it is a process of another PID namespace (another container)`);
    // From the host, A is visible but is not PID 1: only naming its pid makes it trusted.
    const fromHost = await status(['--socket', shared]);
    expect(fromHost.exitCode).toBe(4);
    expect(fromHost.stderr).toContain(`it is pid ${a.pid1} here, not PID 1; pass --pid ${a.pid1} to ask it anyway`);
    expect((await status(['--socket', shared, '--pid', String(a.pid1)])).exitCode).toBe(0);
  });

  it('refuses a caller that is neither root nor its own uid, exit 4', async () => {
    const run = await startPid1(['--', ...leakingApp(0, 0)]);
    await run.waitFor('ready');
    await until(() => unixSocketInode(run.pid1, defaultName(run.pid1)) !== undefined, 5000, 'the status socket');
    const nobody = await statusInside(run.pid1, [], { uid: 65534 });
    expect(nobody.exitCode).toBe(4);
    expect(nobody.stdout).toBe('');
    expect(nobody.stderr).toBe("sexton status: sexton refused to answer: uid 65534 may not ask: only root and sexton's own uid 0 may");
  });
});

describe('--status-socket none', () => {
  it('`sexton status` says the socket is off, exit 3', async () => {
    const run = await startPid1(['--status-socket', 'none', '--', ...leakingApp(0, 0)]);
    await run.waitFor('ready');
    const off = await statusInside(run.pid1);
    expect(off.exitCode).toBe(3);
    expect(off.stderr).toBe('sexton status: PID 1 is a sexton started with --status-socket none: its status socket is off');

    const viaEnv = await startPid1(['--', ...leakingApp(0, 0)], { env: { SEXTON_STATUS_SOCKET: 'none' } });
    await viaEnv.waitFor('ready');
    const offEnv = await statusInside(viaEnv.pid1);
    expect(offEnv.exitCode).toBe(3);
    expect(offEnv.stderr).toBe('sexton status: PID 1 is a sexton started with SEXTON_STATUS_SOCKET=none: its status socket is off');
    // The variable is in the container's environment, so `podman exec` gives it to the client too.
    const client = await execa('nsenter', ['--target', String(viaEnv.pid1), '--pid', '--mount', '--', process.execPath, SEXTON, 'status'], {
      reject: false, timeout: 10_000, stdin: 'ignore', env: { SEXTON_STATUS_SOCKET: 'none' },
    });
    expect(client.exitCode).toBe(3);
    expect(client.stderr).toBe('sexton status: the status socket is off here (SEXTON_STATUS_SOCKET=none)');
  });
});
