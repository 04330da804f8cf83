// PID 1 must not be broken from inside: child_process is unusable in the init, and neither an
// uncaught exception nor EPIPE on stderr kills sexton.
import { execa } from 'execa';
import { beforeAll, expect, test } from 'vitest';
import { asPid1, fixture, requireBuilt, ROOT, startPid1, sextonArgv, until } from '../support/pid1';
import { track } from '../support/processes';
import { childrenOf } from '../../src/harness/namespace';

beforeAll(requireBuilt);

const CHILD_PROCESS_PROBE = fixture('core-guard-child-process.js');

/** The probe's verdicts on stderr, e.g. ['BLOCKED: spawnSync', …]. */
function verdicts(stderr: string): string[] {
  return [...stderr.matchAll(/^(BLOCKED|USABLE): (\w+)/gm)].map((m) => `${m[1]}: ${m[2]}`);
}

test('contrast: the probe finds child_process usable in a plain node process', async () => {
  const result = await execa(process.execPath, ['--require', CHILD_PROCESS_PROBE, '-e', 'setTimeout(() => {}, 300)'], {
    reject: false,
    timeout: 10_000,
  });
  expect(verdicts(result.stderr)).toEqual(['USABLE: spawn', 'USABLE: spawnSync', 'USABLE: execSync']);
});

test('child_process cannot be used inside the init', async () => {
  const run = await startPid1(['--', 'sleep', '0.5'], { nodeArgs: ['--require', CHILD_PROCESS_PROBE], timeoutMs: 10_000 });
  const result = await run.done();
  expect(verdicts(result.stderr), result.stderr).toEqual(['BLOCKED: spawn', 'BLOCKED: spawnSync', 'BLOCKED: execSync']);
  expect(result.exitCode).toBe(0);
});

test('child_process cannot even be required inside the init when nothing loaded it before sexton', async () => {
  const run = await startPid1(['--', 'sleep', '0.5'], { nodeArgs: ['--require', fixture('core-guard-late-require.js')], timeoutMs: 10_000 });
  const result = await run.done();
  expect(result.stderr).toMatch(/^BLOCKED: require: child_process is disabled inside the sexton init/m);
  expect(result.stderr).not.toContain('USABLE');
  expect(result.exitCode).toBe(0);
});

test('child_process cannot be used inside the init even through functions a preload took early', async () => {
  // A preload (NODE_OPTIONS=--require agent.js also applies to the init) may keep references to
  // child_process functions taken before sexton ran. If spawnSync still works it wedges PID 1
  // forever: the reaper thread steals its child's exit status. Bounded by the run's timeout.
  const run = await startPid1(['--', 'sleep', '0.5'], {
    nodeArgs: ['--require', CHILD_PROCESS_PROBE],
    env: { CORE_GUARD_EARLY: '1' },
    timeoutMs: 5000,
  });
  const result = await run.done();
  expect(verdicts(result.stderr), result.stderr).toEqual(['BLOCKED: spawn', 'BLOCKED: spawnSync', 'BLOCKED: execSync']);
  expect(result.exitCode).toBe(0);
});

test('an uncaught exception or unhandled rejection in the init is logged; sexton goes on', async () => {
  const run = await startPid1(['--', 'sh', '-c', 'sleep 0.6; echo child-finished; exit 5'], {
    nodeArgs: ['--require', fixture('core-guard-throw.js')],
    timeoutMs: 10_000,
  });
  const result = await run.done();
  // One line each, no stack and no path of the folder sexton was built in.
  expect(result.stderr.split('\n').filter((l) => l.includes('internal error'))).toEqual([
    'sexton: internal error (sexton keeps running): Error: core-guard: thrown from a timer',
    'sexton: internal error (sexton keeps running): Error: core-guard: rejected and never handled',
  ]);
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(result.stderr).not.toContain(ROOT);
  // The child outlived both errors and sexton still reported its status.
  expect(result.stdout).toBe('child-finished\n');
  expect(result.exitCode).toBe(5);
});

test('at -vv an internal error carries its stack, still on its one line, with paths inside the package', async () => {
  const run = await startPid1(['-vv', '--', 'sh', '-c', 'sleep 0.6'], {
    nodeArgs: ['--require', fixture('core-guard-throw.js')],
    timeoutMs: 10_000,
  });
  const result = await run.done();
  const line = result.stderr.split('\n').find((l) => l.includes('core-guard: thrown from a timer')) as string;
  expect(line).toMatch(/^sexton: internal error \(sexton keeps running\): Error: core-guard: thrown from a timer \| at Timeout\._onTimeout \(test\/fixtures\/core-guard-throw\.js:4:9\) \| at /);
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(result.stderr).not.toContain(ROOT);
  expect(result.exitCode).toBe(0);
});

// Counts the signals it gets (printing each on stdout) and exits 9 once it has all three.
// First it checks that its stderr has no reader: a write there dies of SIGPIPE (141).
const SIGNAL_COUNTER = `
got=0
trap 'echo got:HUP; got=$((got + 1))' HUP
trap 'echo got:USR1; got=$((got + 1))' USR1
trap 'echo got:USR2; got=$((got + 1))' USR2
(echo probe >&2); echo "stderr-write:$?"
echo ready
n=0
while [ "$got" -lt 3 ] && [ "$n" -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
exit 9
`;

test('EPIPE on stderr never kills sexton: it keeps forwarding and exits with the child status', async () => {
  const argv = sextonArgv(['-vv', '--', 'sh', '-c', SIGNAL_COUNTER]);
  const [unshare, ...rest] = asPid1(argv);
  const proc = execa(unshare, rest, {
    reject: false,
    stdin: 'ignore',
    timeout: 15_000,
    killSignal: 'SIGKILL',
  });
  // Close the only reader of sexton's stderr before it writes anything: every log line is EPIPE.
  proc.stderr?.destroy();
  let stdout = '';
  proc.stdout?.on('data', (d) => (stdout += d));
  const unsharePid = proc.pid as number;
  track(unsharePid);  // --kill-child takes the namespace with unshare
  const pid1 = await until(() => childrenOf(unsharePid)[0], 10_000, 'PID 1');
  await until(() => stdout.includes('ready'), 10_000, `"ready"; have ${JSON.stringify(stdout)}`);
  expect(stdout).toContain('stderr-write:141');  // the pipe really has no reader
  // Each forward makes sexton log a line at -vv, into the broken pipe.
  for (const sig of ['SIGHUP', 'SIGUSR1', 'SIGUSR2'] as const) {
    process.kill(pid1, sig);
    await until(() => stdout.includes(`got:${sig.slice(3)}`), 5000, `${sig} at the child; have ${JSON.stringify(stdout)}`);
  }
  const result = await proc;
  expect(result.exitCode).toBe(9);
});
