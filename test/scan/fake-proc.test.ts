// `sexton scan --proc DIR` over a /proc tree of files built in a temp dir (test/support/fake-proc.ts):
// the built command's output, exit codes and bad usage. (The scanner itself, as pure policy, in
// test/unit/scan/scan.test.ts.)
import { execa } from 'execa';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { APP, type FakeProc, makeFakeProc, UID } from '../support/fake-proc';
import { requireBuilt, SEXTON } from '../support/pid1';

let fake: FakeProc;
let proc: string;
let podsDir: string;
let root: string;

beforeAll(() => {
  requireBuilt();
  fake = makeFakeProc();
  ({ proc, podsDir } = fake);
  root = path.dirname(proc);
});

afterAll(() => fake.remove());

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
