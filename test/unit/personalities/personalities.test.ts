// The tini and dumb-init command lines as pure policy: flags and variables → Options, or one
// UsageError worded as the peer's getopt words it. No process is started.
import { constants } from 'node:os';
import { describe, expect, test } from 'vitest';
import { CHILD_SESSION } from '../../../src/platform/native';
import { UsageError } from '../../../src/config/options';
import { getoptLine } from '../../../src/personalities/common';
import { requestedPersonality } from '../../../src/personalities/detect';
import { DUMB_INIT_TABLE, dumbInitUsage, parseDumbInit } from '../../../src/personalities/dumb-init';
import { parseTini, TINI_TABLE, tiniPrefix, tiniSink, tiniUsage } from '../../../src/personalities/tini';

const S = constants.signals;

function run<T>(request: { kind: string; options?: T }) {
  if (request.kind !== 'run') throw new Error(`expected a run, got ${request.kind}`);
  return request as unknown as { kind: 'run'; options: import('../../../src/config/options').Options; extra: any };
}
const tini = (argv: string[], env: Record<string, string> = {}) => run(parseTini(argv, env));
const dumbInit = (argv: string[], env: Record<string, string> = {}) => run(parseDumbInit(argv, env));

function usageError(parse: () => unknown, name: string): string {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return getoptLine(name, error as UsageError);
  }
  throw new Error('expected a usage error');
}

describe('which personality', () => {
  const node = '/usr/bin/node';
  test.each([
    [['node', '/usr/local/bin/tini', '--', 'app'], {}, 'tini'],
    [['node', '/sbin/dumb-init', 'app'], {}, 'dumb-init'],
    [['node', '/usr/local/bin/sexton', 'app'], {}, undefined],
    [['node', '/usr/local/bin/sexton', 'app'], { SEXTON_PERSONALITY: 'tini' }, 'tini'],
    [['node', '/usr/local/bin/sexton', 'app'], { SEXTON_PERSONALITY: 'sexton' }, undefined],
    [['node', '/usr/local/bin/sexton', 'app'], { SEXTON_PERSONALITY: '' }, undefined],
    // checked later, with a usage error
    [['node', '/usr/local/bin/sexton', 'app'], { SEXTON_PERSONALITY: 'catatonit' }, 'catatonit'],
    // the link's name wins over the variable
    [['node', '/usr/bin/tini', 'app'], { SEXTON_PERSONALITY: 'dumb-init' }, 'tini'],
    // the tools keep their names under the variable, not under a link
    [['node', '/usr/local/bin/sexton', 'status'], { SEXTON_PERSONALITY: 'tini' }, undefined],
    [['node', '/usr/local/bin/sexton', 'scan'], { SEXTON_PERSONALITY: 'tini' }, undefined],
    [['node', '/usr/local/bin/sexton', 'code-cache'], { SEXTON_PERSONALITY: 'dumb-init' }, undefined],
    [['node', '/usr/local/bin/sexton', 'harness'], { SEXTON_PERSONALITY: 'tini' }, undefined],
    [['node', '/usr/bin/tini', 'status'], {}, 'tini'],
  ])('%j %j → %s', (argv, env, expected) => {
    expect(requestedPersonality(argv, node, env)).toBe(expected);
  });

  test('argv0 counts when the script path does not name one (an executable build)', () => {
    expect(requestedPersonality(['/usr/bin/tini', '/snapshot/sexton.js'], '/usr/bin/tini', {})).toBe('tini');
  });
});

describe('tini', () => {
  test('defaults: warnings, no subreaper, no group, no stop sequence, no status socket, exit with the child', () => {
    const { options, extra } = tini(['app', '-s']);
    expect(options.command).toEqual(['app', '-s']);  // options stop at the first word
    expect(options).toMatchObject({ verbosity: 1, subreaper: false, pgroup: false, stopSignal: 0, statusSocket: [] });
    expect(extra).toEqual({ verbosity: 1, warnOnReap: false });
  });

  test('-s, -g, -w, -vv, -p, -e clustered and repeated', () => {
    const { options, extra } = tini(['-sgwvv', '-p', 'SIGKILL', '-e', '143', '-e3', '--', 'app']);
    expect(options).toMatchObject({ subreaper: true, pgroup: true, verbosity: 3, pdeathSignal: S.SIGKILL });
    expect([...options.remapExit]).toEqual([143, 3]);
    expect(extra).toEqual({ verbosity: 3, warnOnReap: true });
  });

  test('TINI_SUBREAPER and TINI_KILL_PROCESS_GROUP count when set at all, even empty', () => {
    expect(tini(['app'], { TINI_SUBREAPER: '', TINI_KILL_PROCESS_GROUP: '' }).options).toMatchObject({ subreaper: true, pgroup: true });
  });

  test('TINI_VERBOSITY is read after the flags and wins; tini levels above debug log as debug', () => {
    expect(tini(['-vvv', 'app'], { TINI_VERBOSITY: '0' }).options.verbosity).toBe(0);
    const loud = tini(['app'], { TINI_VERBOSITY: '4' });
    expect(loud.options.verbosity).toBe(3);
    expect(loud.extra.verbosity).toBe(4);
    expect(usageError(() => tini(['app'], { TINI_VERBOSITY: 'loud' }), 'tini')).toMatch(/TINI_VERBOSITY='loud': expected a number/);
  });

  test('-h, --version and -l are requests of their own', () => {
    expect(parseTini(['-h'], {}).kind).toBe('help');
    expect(parseTini(['--version'], {}).kind).toBe('version');
    expect(parseTini(['-l'], {}).kind).toBe('license');
  });

  test.each([
    [['-x', 'app'], "tini: invalid option -- 'x'"],
    [['--subreaper', 'app'], "tini: unrecognized option '--subreaper'"],  // tini has no long options but --version
    [['-p'], "tini: option requires an argument -- 'p'"],
    [[], 'tini: no command given'],
    [['-e', '256', 'app'], "remap-exit '256'"],
    [['-p', 'NOSUCH', 'app'], "unknown signal 'NOSUCH'"],
  ])('%j: %s', (argv, line) => {
    expect(usageError(() => parseTini(argv, {}), 'tini')).toContain(line);
  });

  test("sexton's extras only through their variables; SEXTON_GRACE brings back the stop sequence", () => {
    const { options } = tini(['app'], { SEXTON_GRACE: '3', SEXTON_STATUS_SOCKET: 'rel.sock', SEXTON_VERBOSE: '2', SEXTON_PGROUP: '1' });
    expect(options).toMatchObject({ grace: 3, stopSignal: S.SIGTERM, verbosity: 1, pgroup: false });
    expect(options.statusSocket).toEqual([`${process.cwd()}/rel.sock`]);
  });

  test('usage names every option and variable', () => {
    for (const o of TINI_TABLE) {
      expect(tiniUsage()).toContain(o.shortOnly ? `-${o.short}` : `--${o.long}`);
      if (o.env) expect(tiniUsage()).toContain(o.env);
    }
  });

  test('log lines: levelled prefix; fatal and warnings to stderr, the rest to stdout', () => {
    expect(tiniPrefix(1)).toBe(`[WARN  tini (${process.pid})] `);
    expect(tiniPrefix(0)).toMatch(/^\[FATAL tini/);
    expect(tiniPrefix(3)).toMatch(/^\[DEBUG tini/);
    const fds: number[] = [];
    const sink = tiniSink((_text, fd) => (fds.push(fd), 1));
    for (const level of [0, 1, 2, 3]) sink('x', level);
    expect(fds).toEqual([2, 2, 1, 1]);
  });
});

describe('dumb-init', () => {
  test('defaults: setsid mode, signals to the group, job-control signals as STOP, quiet, no subreaper', () => {
    const { options, extra } = dumbInit(['app', '-c']);
    expect(options.command).toEqual(['app', '-c']);
    expect(options).toMatchObject({ pgroup: true, subreaper: false, verbosity: 0, stopSignal: 0, childSession: CHILD_SESSION.newSession });
    expect(options.rewrites).toEqual(new Map([[S.SIGTSTP, S.SIGSTOP], [S.SIGTTIN, S.SIGSTOP], [S.SIGTTOU, S.SIGSTOP]]));
    expect(extra).toEqual({ setsid: true, termOnExit: S.SIGTERM });
  });

  test.each([
    [['-c', 'app'], {}],
    [['--single-child', 'app'], {}],
    [['app'], { DUMB_INIT_SETSID: '0' }],
  ])('single-child mode: %j %j', (argv, env) => {
    const { options, extra } = dumbInit(argv, env);
    expect(options).toMatchObject({ pgroup: false, childSession: CHILD_SESSION.sameGroup });
    expect(options.rewrites.size).toBe(0);
    expect(extra.setsid).toBe(false);
  });

  test('only the exact values of the variables count', () => {
    expect(dumbInit(['app'], { DUMB_INIT_SETSID: 'no', DUMB_INIT_DEBUG: 'yes' }).options).toMatchObject({ pgroup: true, verbosity: 0 });
    expect(dumbInit(['app'], { DUMB_INIT_DEBUG: '1' }).options.verbosity).toBe(3);
    expect(dumbInit(['-v', 'app']).options.verbosity).toBe(3);
  });

  test('-r rewrites by number, 0 drops, -r wins over the STOP default, and it rewrites the TERM sent at exit', () => {
    const { options, extra } = dumbInit(['-r', '15:10', '--rewrite=20:0', '-r1:2', 'app']);
    expect(options.rewrites.get(S.SIGTERM)).toBe(S.SIGUSR1);
    expect(options.rewrites.get(S.SIGTSTP)).toBe(0);
    expect(options.rewrites.get(S.SIGHUP)).toBe(S.SIGINT);
    expect(options.rewrites.get(S.SIGTTIN)).toBe(S.SIGSTOP);
    expect(extra.termOnExit).toBe(S.SIGUSR1);
    expect(dumbInit(['-r', '15:0', 'app']).extra.termOnExit).toBe(0);
  });

  test.each(['1', '0:1', '32:1', '15:32', 'TERM:INT', '15:', '-1:2'])('-r %s is refused', (value) => {
    expect(usageError(() => parseDumbInit(['-r', value, 'app'], {}), 'dumb-init')).toMatch(/-r takes s:r/);
  });

  test('-h and -V act where getopt meets them: before a bad -r after them, after one before them', () => {
    expect(parseDumbInit(['-V', '-r', 'x'], {}).kind).toBe('version');
    expect(parseDumbInit(['--help'], {}).kind).toBe('help');
    expect(() => parseDumbInit(['-r', 'x', '-h'], {})).toThrow(UsageError);
  });

  test.each([
    [['--x', 'app'], "dumb-init: unrecognized option '--x'"],
    [['-x', 'app'], "dumb-init: invalid option -- 'x'"],
    [['-r'], "dumb-init: option requires an argument -- 'r'"],
    [['--rewrite'], "dumb-init: option '--rewrite' requires an argument"],
    [['--verbose=1', 'app'], "dumb-init: option '--verbose' doesn't allow an argument"],
    [['--x\u001b[2J', 'app'], "dumb-init: unrecognized option '--x\\x1b[2J'"],
  ])('%j: %s', (argv, line) => {
    expect(usageError(() => parseDumbInit(argv, {}), 'dumb-init')).toBe(line);
  });

  test('usage names every option and variable', () => {
    for (const o of DUMB_INIT_TABLE) {
      expect(dumbInitUsage()).toContain(`--${o.long}`);
      if (o.env) expect(dumbInitUsage()).toContain(o.env);
    }
  });

  test('a relative SEXTON_STATS_FILE is fixed before dumb-init leaves for /', () => {
    expect(dumbInit(['app'], { SEXTON_STATS_FILE: 'stats.json' }).options.statsFile).toBe(`${process.cwd()}/stats.json`);
  });
});
