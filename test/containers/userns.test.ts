// sexton from the self-contained tree as PID 1 in a user namespace: podman's --userns=auto, the
// engine's counterpart of a pod's `hostUsers: false` (containerd 1.6, the CRI tier's, has none).
// Root in the container is an unprivileged uid of the host, so every privilege sexton uses is
// the namespace's own. Each feature works, or its one line says what the kernel refused
// (docs/operations.md's restricted matrix).
//
// --userns=auto takes root's ranges from the `containers` entries of /etc/subuid and /etc/subgid:
// this file adds one range to each when there is none, and takes exactly that line out again.
import { appendFileSync, chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, expect, inject, test } from 'vitest';
import { exec, logs, removeAll, start, stop, untilReaped, waitExit, waitForLog } from './containers';
import { BASES, importBases, importVolumeImage } from './base-images';
import { podman } from './podman';

const SUBID_LINE = 'containers:300000000:1000000';
/** Each subordinate-id file this run changed, and whether it was there before. */
const changed = new Map<string, boolean>();

function addSubids(): void {
  for (const file of ['/etc/subuid', '/etc/subgid']) {
    const existed = existsSync(file);
    const text = existed ? readFileSync(file, 'utf8') : '';
    if (/^containers:/m.test(text)) continue;
    appendFileSync(file, `${text && !text.endsWith('\n') ? '\n' : ''}${SUBID_LINE}\n`);
    changed.set(file, existed);
  }
}

function removeSubids(): void {
  for (const [file, existed] of changed) {
    const rest = readFileSync(file, 'utf8').split('\n').filter((line) => line !== SUBID_LINE).join('\n');
    if (!existed && rest === '') unlinkSync(file);
    else writeFileSync(file, rest);
  }
  changed.clear();
}

const scratch = mkdtempSync(path.join(tmpdir(), 'sexton-userns-'));
chmodSync(scratch, 0o755);  // the tree is bind-mounted from here: the namespace's root is no one on the host
let tree = '';
beforeAll(async () => {
  process.once('exit', removeSubids);  // a run that dies before afterAll leaves no range behind
  addSubids();
  tree = await importVolumeImage(inject('engine'), scratch);
  await importBases(inject('engine'), scratch);
}, 240_000);
afterEach(removeAll);
afterAll(() => {
  removeSubids();
  rmSync(scratch, { recursive: true, force: true });
});

/**
 * The tree as a read-only bind mount, the image volume's stand-in: podman 4.3 cannot give an
 * image mount (--mount type=image) to a container with --userns=auto (runc: the overlay of the
 * image at /sexton, "permission denied"), a limit of that podman, not of sexton's.
 */
const userns = () => ['--userns=auto', '-v', `${tree}:/sexton:ro`];
const IMAGE = BASES['alpine-musl'];

test('--userns=auto: PID 1 as the namespace\'s root, reaping, health, metrics, status, probe, oom_score_adj, TERM', async () => {
  const name = await start(IMAGE, ['--health', '127.0.0.1:8081', '--metrics', '127.0.0.1:8082', '--', '/app/volume-app'],
    { entrypoint: '["/sexton/bin/sexton"]', runFlags: userns() });
  await waitForLog(name, 'ready');
  // A user namespace indeed: root inside is an unprivileged range of the host's.
  const [inside, outside] = (await exec(name, ['cat', '/proc/1/uid_map'])).trim().split(/\s+/).map(Number);
  expect(inside).toBe(0);
  expect(outside).toBeGreaterThan(0);

  const status = await untilReaped(name, 1, '/sexton/bin/sexton');
  expect(status).toMatchObject({ pid: 1, orphansReaped: 1, zombieCount: 0 });
  expect(await exec(name, ['wget', '-qO-', 'http://127.0.0.1:8081/livez'])).toBeTruthy();
  expect(await exec(name, ['wget', '-qO-', 'http://127.0.0.1:8081/readyz'])).toBeTruthy();
  expect(await exec(name, ['wget', '-qO-', 'http://127.0.0.1:8082/metrics'])).toMatch(/^sexton_reaped_total\{kind="orphan"\} 1$/m);
  const probed = await podman(inject('engine'), ['exec', name, '/sexton/bin/sexton', 'probe', '--timeout', '0.5', '--', 'sleep', '30'], { reject: false });
  expect(probed.exitCode).toBe(124);
  const own = Number(await exec(name, ['cat', '/proc/1/oom_score_adj']));
  expect(Number(await exec(name, ['cat', `/proc/${status.mainChild.pid}/oom_score_adj`]))).toBeGreaterThan(own);

  await stop(name, 20);
  expect(await waitExit(name)).toBe(0);
  const output = await logs(name);
  expect(output).toContain('got TERM');
  expect(output).toMatch(/exiting with 0: reaped \d+ \(1 orphans: volume-app×1/);
  expect(output).not.toMatch(/internal error/);
  console.log(`userns: sexton's lines:\n${output.split('\n').filter((l) => l.startsWith('sexton:')).join('\n')}`);
});

test('--userns=auto: an app that ignores TERM is SIGKILLed at the grace period, 137', async () => {
  const name = await start(IMAGE, ['--grace', '1', '--', '/app/volume-app', 'ignore'], { entrypoint: '["/sexton/bin/sexton"]', runFlags: userns() });
  await waitForLog(name, 'ready');
  const took = await stop(name, 20);
  expect(await waitExit(name)).toBe(137);
  expect(took).toBeLessThan(10_000);
});
