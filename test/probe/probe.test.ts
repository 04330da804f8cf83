// `sexton probe` inside a real PID 1's namespace, where exec probes run: a tree that
// ignores TERM and one that setsid's away are both ended within --timeout + --kill-after, and
// no process of theirs is left; a command that ends in time keeps its status, and what it left
// running is ended too.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { requireBuilt, startPid1, SEXTON, until } from '../support/pid1';
import { childrenOf } from '../../src/harness/namespace';
import { hostDescendants } from '../support/processes';

beforeAll(requireBuilt);

/** Command lines of every process below PID 1 (host view), PID 1 excluded. */
function commands(pid1: number): string[] {
  return hostDescendants(pid1).map((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0+$/, '').replace(/\0/g, ' ');
    } catch {
      return '';
    }
  }).filter((c) => c !== '');
}

/** Runs `sexton probe ARGS` from the main child of a sexton PID 1; returns its status and what is left after it. */
async function probeInPod(args: string[]) {
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const script = `start=$(date +%s%N); ${process.execPath} ${SEXTON} probe ${quoted}; echo probe-exit=$? ms=$(( ($(date +%s%N) - start) / 1000000 )); exec sleep 30`;
  const run = await startPid1(['--', 'sh', '-c', script]);
  try {
    await run.waitFor(/probe-exit=\d+ ms=\d+/, 'stdout', 30_000);
    const [, code, ms] = /probe-exit=(\d+) ms=(\d+)/.exec(run.stdout()) as RegExpExecArray;
    // The shell's exec of `sleep 30` is the event to wait for. A straggler needs no wait: what
    // the probe started exists by the probe's exit (or is gone for good), so it shows now.
    const [main] = childrenOf(run.pid1);
    await until(() => readFileSync(`/proc/${main}/cmdline`, 'utf8') === 'sleep\x0030\x00', 10_000, 'the shell to exec sleep 30');
    return { code: Number(code), ms: Number(ms), left: commands(run.pid1), stdout: run.stdout() };
  } finally {
    run.signal('SIGKILL');
    await run.done();
  }
}

describe('sexton probe', () => {
  it('ends a tree that ignores TERM and a process that setsid away: 124, nothing left', async () => {
    const tree = "trap '' TERM; sleep 101 & setsid sh -c 'trap \"\" TERM; exec sleep 102' & setsid sleep 103 & echo tree-up; wait";
    const r = await probeInPod(['--timeout', '0.5', '--kill-after', '0.5', '--', 'sh', '-c', tree]);
    expect(r.stdout).toContain('tree-up');
    expect(r.code).toBe(124);
    expect(r.ms).toBeGreaterThanOrEqual(1000);  // TERM at 0.5 s was ignored; KILL at 1 s
    expect(r.ms).toBeLessThan(10_000);
    expect(r.left).toEqual(['sleep 30']);
  }, 60_000);

  it('keeps the status of a command that ends in time, and ends what it left running', async () => {
    const r = await probeInPod(['--timeout', '20', '--', 'sh', '-c', 'setsid sleep 104 & sleep 105 & exit 3']);
    expect(r.code).toBe(3);
    expect(r.ms).toBeLessThan(15_000);
    expect(r.left).toEqual(['sleep 30']);
  }, 60_000);

  it('says 127 for a command that is not there and 125 for bad usage, like timeout(1)', async () => {
    expect((await probeInPod(['--', 'no-such-command-here'])).code).toBe(127);
    expect((await probeInPod(['--timeout', 'soon', '--', 'true'])).code).toBe(125);
  }, 60_000);
});
