// Is a process waiting on a FUSE file system that never answers still killable on this kernel?
// Measured here (Linux 6.18): while the daemon has not read the request, SIGKILL ends the wait;
// once it has read it and never answers, the waiter sleeps interruptibly (state S, wchan
// request_wait_answer) until SIGKILL, and then uninterruptibly (state D, SIGKILL pending) for as
// long as the daemon lives: the NFS-like stuck pod. `sexton scan --stuck` names the mount.
// The cgroup v2 tier runs this file in its guest too (Linux 6.1, where no v1 freezer makes a
// stuck process: a v2-frozen one is killable, test/cgroup2/frozen.test.ts).
import { execa } from 'execa';
import { mkdtempSync, readFileSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeAll, expect, test } from 'vitest';
import { fixture, requireBuilt, SEXTON, SLOWDOWN, until } from '../support/pid1';
import { procStat } from '../support/processes';
import { track } from '../support/processes';

const dirs: string[] = [];
beforeAll(requireBuilt);
afterEach(() => {
  for (const dir of dirs.splice(0)) rmdirSync(dir);
});

const wchan = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/wchan`, 'utf8');
  } catch {
    return undefined;
  }
};

test('a request the FUSE daemon read and never answers: S until SIGKILL, then D with the kill pending; the scan names the mount; the daemon gone, it dies', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sexton-stuck-fuse-'));
  dirs.push(dir);
  // A mount namespace of its own: the mount goes with the daemon, whatever happens.
  const daemon = execa('unshare', ['--mount', '--propagation', 'private', process.execPath, fixture('fuse-never-answers.js'), dir], { reject: false, timeout: 60_000 * SLOWDOWN, killSignal: 'SIGKILL' });
  track(daemon.pid);
  let out = '';
  daemon.stdout?.on('data', (d) => (out += d));
  const victim = Number((await until(() => /victim (\d+)/.exec(out) ?? undefined, 10_000, `the victim; daemon said: ${out}`))[1]);
  // Read by the daemon (a request still queued would be dropped by SIGKILL, killable).
  await until(() => out.includes('swallowed opcode 1\n'), 10_000, `the daemon to read the victim's LOOKUP; it said: ${out}`);
  await until(() => wchan(victim) === 'request_wait_answer', 10_000, 'the victim waiting on its lookup');
  expect(procStat(victim)?.state).toBe('S');

  process.kill(victim, 'SIGKILL');
  await until(() => procStat(victim)?.state === 'D', 10_000, 'the killed victim in state D');
  const scan = await execa(process.execPath, [SEXTON, 'scan', '--stuck', '--json', '--min-age', '0.3'], { reject: false, timeout: 30_000 * SLOWDOWN });
  expect(scan.exitCode, String(scan.stderr)).toBe(1);
  expect(JSON.parse(String(scan.stdout)).stuck.find((s: any) => s.pid === victim)).toMatchObject({
    state: 'D', wchan: 'request_wait_answer', killPending: true,
    syscall: expect.stringMatching(/^(statx|newfstatat|stat|lstat)$/),
    mount: { mountPoint: dir, fstype: 'fuse', source: 'sexton-stuck-fuse', via: 'cwd' },
  });
  expect(out).toMatch(/swallowed opcode 36/);  // FUSE_INTERRUPT, after the kill: unanswered too

  daemon.kill('SIGKILL');
  await daemon;
  await until(() => procStat(victim) === undefined || procStat(victim)?.state === 'Z', 10_000, 'the victim to die with the connection');
});
