// sexton reached through a link named tini behaves as tini: the same tests run against Debian's
// tini, so each assertion is one tini itself passes.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { requireBuilt, startPid1, SEXTON, TINI } from '../support/pid1';
import { alive, bothOf, descendantNamed, Links, requirePeers, runTool, runToEnd } from '../support/personalities';
import { track } from '../support/processes';

let links: Links;
beforeAll(() => {
  requireBuilt();
  requirePeers();
  links = new Links();
});
afterAll(() => links?.remove());

const both = bothOf(() => links, 'tini');
const sh = (script: string) => ['sh', '-c', script];

describe.each(both)('%s', (_label, tini) => {
  test('--version prints a line with "tini version"; -h prints usage naming the options; both exit 0', async () => {
    const version = await runToEnd([tini(), '--version']);
    expect(version.exitCode).toBe(0);
    expect(version.stdout).toMatch(/^tini version \S+/);
    const help = await runToEnd([tini(), '-h']);
    expect(help.exitCode).toBe(0);
    for (const flag of ['-s', '-v', '-w', '-g', '-p', '-e', '-l', '--version']) expect(help.stdout).toContain(flag);
  });

  test.each([
    [['-x', 'true'], "invalid option -- 'x'"],
    [[], ''],
    [['-e', '256', 'true'], ''],
    [['-p', 'SIGNOSUCH', 'true'], ''],
  ])('bad input %j exits 1 with the usage on stderr', async (args, line) => {
    const result = await runToEnd([tini(), ...args]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(line);
  });

  test('exec failure: 127 when the command is not there, 126 when it cannot run', async () => {
    expect((await runToEnd([tini(), '--', '/nonexistent/command'])).exitCode).toBe(127);
    expect((await runToEnd([tini(), '--', '/etc/passwd'])).exitCode).toBe(126);
  });

  test('-e CODE reports that exit code as 0, repeatably; a signal death is 128+N', async () => {
    expect((await runToEnd([tini(), '-e', '3', '-e', '4', '--', ...sh('exit 4')])).exitCode).toBe(0);
    expect((await runToEnd([tini(), '-e', '3', '--', ...sh('exit 5')])).exitCode).toBe(5);
    expect((await runToEnd([tini(), '--', ...sh('kill -USR1 $$')])).exitCode).toBe(128 + 10);
  });

  test("not PID 1 and no -s: a [WARN  tini (PID)] line says zombie reaping won't work, and it runs anyway", async () => {
    const result = await runToEnd([tini(), '--', ...sh('exit 3')]);
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toContain(`[WARN  tini (${result.pid})]`);
    expect(result.stderr).toContain("zombie reaping won't work");
  });

  // The orphan's parent once its own parent (the child) is gone: tini, if it is a subreaper.
  const ORPHAN_PARENT = sh('o=$(sh -c "sleep 3 >/dev/null 2>&1 & echo \\$!"); sleep 0.3; echo orphan=$o; cut -d" " -f4 /proc/$o/stat');

  test.each([
    ['-s', ['-s'], {}],
    ['TINI_SUBREAPER set empty', [], { TINI_SUBREAPER: '' }],
  ])('%s: registers as child subreaper (orphans come to it), with no warning', async (_how, flags, env) => {
    const result = await runToEnd([tini(), ...flags, '--', ...ORPHAN_PARENT], { env });
    track(Number(/orphan=(\d+)/.exec(result.stdout)?.[1]));
    expect(result.stdout.trim().split('\n').at(-1)).toBe(String(result.pid));
    expect(result.stderr).not.toContain('zombie reaping');
  });

  test('-w: a warning "Reaped zombie process with pid=N" for an orphan, none for the main child', async () => {
    const result = await runToEnd([tini(), '-s', '-w', '--', ...sh('o=$(sh -c "sleep 0.1 >/dev/null & echo \\$!"); sleep 0.5; echo orphan=$o')]);
    const orphan = /orphan=(\d+)/.exec(result.stdout)?.[1];
    expect(result.stderr).toContain(`Reaped zombie process with pid=${orphan}`);
    expect(result.stderr.match(/Reaped zombie process/g)).toHaveLength(1);
  });

  test('-vv says "Received SIGCHLD" on stdout; TINI_VERBOSITY=3 too; TINI_VERBOSITY=1 wins over -vv', async () => {
    expect((await runToEnd([tini(), '-vv', '--', 'true'])).stdout).toContain('Received SIGCHLD');
    expect((await runToEnd([tini(), '--', 'true'], { env: { TINI_VERBOSITY: '3' } })).stdout).toContain('Received SIGCHLD');
    const quiet = await runToEnd([tini(), '-vv', '--', 'true'], { env: { TINI_VERBOSITY: '1' } });
    expect(quiet.stdout + quiet.stderr).not.toContain('Received SIGCHLD');
  });

  // sh gets TERM too, and its trap runs once its foreground sleep ends.
  const GROUP_PROBE = sh('trap "echo sh-got-term" TERM; sleep 20; echo sleep=$?');

  test.each([
    ['-g', ['-g'], {}],
    ['TINI_KILL_PROCESS_GROUP', [], { TINI_KILL_PROCESS_GROUP: '' }],
  ])("%s: a signal goes to the child's whole process group", async (_how, flags, env) => {
    const run = runTool([tini(), ...flags, '--', ...GROUP_PROBE], { env });
    await descendantNamed(run.pid as number, 'sleep');  // a forked sh is not it yet: it has sh's trap
    process.kill(run.pid as number, 'SIGTERM');
    const result = await run;
    expect(result.stdout).toContain('sleep=143');
    expect(result.exitCode).toBe(0);
  });

  test('exits as soon as the main child does, leaving a process that ignores TERM', async () => {
    const result = await runToEnd([tini(), '-s', '--', ...sh('sh -c \'trap "" TERM; sleep 20\' >/dev/null 2>&1 & echo left=$!; exit 5')]);
    const left = Number(/left=(\d+)/.exec(result.stdout)?.[1]);
    track(left);
    expect(result.exitCode).toBe(5);
    expect(alive(left)).toBe(true);  // still there: tini did not wait for it
  });

  test('as PID 1: reaps orphans (-w names them), exits with the child at once, the namespace takes the rest', async () => {
    const run = await startPid1([tini(), '-w', '--', ...sh('sh -c "true & sleep 20 &"; sleep 0.5; exit 7')], { raw: true });
    const result = await run.done();
    expect(result.exitCode).toBe(7);
    expect(result.stderr).toMatch(/\[WARN {2}tini \(1\)\] Reaped zombie process with pid=\d+/);
    expect(result.stderr).not.toContain('zombie reaping');
    expect(result.durationMs).toBeLessThan(5000);
  });
});

describe('sexton as tini only', () => {
  const tini = () => links.path('tini');

  test('--version names sexton; -l prints sexton\'s MIT licence', async () => {
    expect((await runToEnd([tini(), '--version'])).stdout).toMatch(/^tini version \S*sexton\S*\n?$/);
    const licence = await runToEnd([tini(), '-l']);
    expect(licence.exitCode).toBe(0);
    expect(licence.stdout).toMatch(/^MIT License\n\nCopyright \(c\) the sexton authors\n/);
    expect(licence.stdout).toContain('Permission is hereby granted, free of charge');
  });

  test('SEXTON_PERSONALITY=tini makes plain sexton tini; a bad value is one line and exit 2', async () => {
    const version = await runToEnd([process.execPath, SEXTON, '--version'], { env: { SEXTON_PERSONALITY: 'tini' } });
    expect(version.stdout).toMatch(/^tini version/);
    const bad = await runToEnd([process.execPath, SEXTON, 'true'], { env: { SEXTON_PERSONALITY: 'runit' } });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr.trim()).toBe("sexton: SEXTON_PERSONALITY='runit': expected tini, dumb-init or sexton");
  });

  test('-vv info lines go to stdout with [INFO  tini (PID)], warnings to stderr', async () => {
    const result = await runToEnd([tini(), '-vv', '--', 'true']);
    expect(result.stdout).toMatch(new RegExp(`^\\[INFO  tini \\(${result.pid}\\)\\] `, 'm'));
    expect(result.stderr).not.toContain('[INFO ');
  });

  test('a NODE_OPTIONS preload makes sexton start itself again: through the link, so still as tini', async () => {
    const result = await runToEnd([tini(), '-vv', '--', 'true'], { env: { NODE_OPTIONS: '--require /dev/null' } });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^\[INFO  tini \(\d+\)\] started 'true'/m);
  });

  test('as PID 1 with SEXTON_GRACE (an opt-in extra): leftovers get the grace period, then KILL', async () => {
    // The child leaves only once the leftover ignores TERM: before that a TERM would end it.
    const armed = `${links.dir}/armed`;
    rmSync(armed, { force: true });
    const script = `sh -c 'trap "" TERM; touch ${armed}; sleep 20' & until [ -e ${armed} ]; do sleep 0.01; done; exit 5`;
    const run = await startPid1([tini(), '--', ...sh(script)], { raw: true, env: { SEXTON_GRACE: '1' } });
    const result = await run.done();
    expect(result.exitCode).toBe(5);
    expect(result.durationMs).toBeGreaterThanOrEqual(1000);
    expect(result.stderr).toMatch(/\[WARN {2}tini \(1\)\] .*killed \d+ survivor/);
  });

  test('Debian tini for contrast: the same run ignores SEXTON_GRACE and exits at once', async () => {
    // (The sleep lets startPid1 see PID 1 before it is gone: tini starts in a millisecond.)
    const run = await startPid1([TINI, '--', ...sh('sh -c \'trap "" TERM; sleep 20\' & sleep 0.3; exit 5')], { raw: true, env: { SEXTON_GRACE: '1' } });
    const result = await run.done();
    expect(result.exitCode).toBe(5);
    expect(result.durationMs).toBeLessThan(1000);
  });
});
