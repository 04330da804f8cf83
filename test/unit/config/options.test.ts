// Option parsing as pure policy: flags and SEXTON_* variables → Options, or one UsageError.
import { describe, expect, test } from 'vitest';
import { parseArgs, UsageError } from '../../../src/config/options';

const run = (argv: string[], env: Record<string, string> = {}) => {
  const request = parseArgs(argv, env);
  if (request.kind !== 'run') throw new Error(`expected a run, got ${request.kind}`);
  return request.options;
};
const usageError = (argv: string[], env: Record<string, string> = {}) => {
  try {
    parseArgs(argv, env);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error(`expected a usage error for ${JSON.stringify(argv)} ${JSON.stringify(env)}`);
};

describe('empty values are usage errors, never the default', () => {
  test.each([
    [['--grace=', '--', 'true']],
    [['-t', '', '--', 'true']],
    [['--stop-signal=', '--', 'true']],
    [['--metrics=', '--', 'true']],
    [['-t']],
  ])('%j', (argv) => {
    expect(usageError(argv)).toMatch(/needs a value/);
  });

  test.each(['SEXTON_GRACE', 'SEXTON_STOP_SIGNAL', 'SEXTON_METRICS', 'SEXTON_DRAIN_DELAY', 'SEXTON_CHILD_OOM_SCORE_ADJ'])('%s=', (name) => {
    expect(usageError(['true'], { [name]: '' })).toMatch(new RegExp(`${name} is set but empty`));
  });

  test("an empty command word ('') is a usage error", () => {
    expect(usageError(['--', ''])).toMatch(/empty word/);
  });
});

describe('--metrics needs no resolver', () => {
  test('IP addresses and localhost are taken; localhost means 127.0.0.1', () => {
    expect(run(['--metrics', '0.0.0.0:9102', 'true']).metrics).toEqual({ host: '0.0.0.0', port: 9102 });
    expect(run(['--metrics', '[::1]:9102', 'true']).metrics).toEqual({ host: '::1', port: 9102 });
    expect(run(['--metrics', 'localhost:9102', 'true']).metrics).toEqual({ host: '127.0.0.1', port: 9102 });
    expect(run(['--metrics', ':9102', 'true']).metrics).toEqual({ host: '0.0.0.0', port: 9102 });
  });

  test('a name that needs DNS is refused', () => {
    expect(usageError(['--metrics', 'metrics.internal:9102', 'true'])).toMatch(/IP address or localhost/);
    expect(usageError(['--metrics', '300.1.1.1:9102', 'true'])).toMatch(/IP address or localhost/);
  });
});

describe('--child-oom-score-adj', () => {
  test('auto by default; off; a number within -1000..1000', () => {
    expect(run(['true']).childOomScoreAdj).toBe('auto');
    expect(run(['--child-oom-score-adj', 'off', 'true']).childOomScoreAdj).toBe('off');
    expect(run(['true'], { SEXTON_CHILD_OOM_SCORE_ADJ: '-500' }).childOomScoreAdj).toBe(-500);
    expect(usageError(['--child-oom-score-adj', '1001', 'true'])).toMatch(/from -1000 to 1000/);
    expect(usageError(['--child-oom-score-adj', 'high', 'true'])).toMatch(/auto, off or a number/);
  });
});

test('echoed values are escaped and cut, one line', () => {
  const message = usageError(['--grace', `${'9'.repeat(500)}\nx`, 'true']);
  expect(message).not.toMatch(/\n/);
  expect(message.length).toBeLessThan(200);
});

test('--metrics refuses what only looks like an IPv6 address (Node would look it up)', () => {
  expect(usageError(['--metrics', '[1:2]:9102', 'true'])).toMatch(/IP address or localhost/);
  expect(usageError(['--metrics', '[:::]:9102', 'true'])).toMatch(/IP address or localhost/);
  expect(run(['--metrics', '[fe80::1]:9102', 'true']).metrics).toEqual({ host: 'fe80::1', port: 9102 });
});

describe('--drain-quiet', () => {
  test('a quiet window within the drain delay, from the flag or SEXTON_DRAIN_QUIET', () => {
    expect(run(['--drain-delay', '10', '--drain-quiet', '2', 'x'])).toMatchObject({ drainDelay: 10, drainQuiet: 2 });
    expect(run(['-d', '3', 'x'], { SEXTON_DRAIN_QUIET: '0.5' })).toMatchObject({ drainDelay: 3, drainQuiet: 0.5 });
    expect(run(['-d', '3', '--drain-quiet=3', 'x'])).toMatchObject({ drainQuiet: 3 });
    expect(run(['-d', '3', 'x'])).toMatchObject({ drainQuiet: 0 });
  });

  test('negative, zero, non-numeric, absurd: one usage line', () => {
    for (const bad of ['-1', '0', '0.0', '0.05', 'abc', '1e3', '2s', 'NaN', 'Infinity', '86401', '99999999999999999999']) {
      const message = usageError(['-d', '86400', `--drain-quiet=${bad}`, 'x']);
      expect(message).toMatch(/^drain-quiet .*: expected seconds from 0\.1 to 86400, e\.g\. 2$/);
      expect(message).not.toContain('\n');
    }
  });

  test('longer than its cap, the drain delay: an error that names both', () => {
    expect(usageError(['-d', '3', '--drain-quiet', '5', 'x'])).toBe('drain-quiet 5 is longer than drain-delay 3, its cap: give --drain-delay at least 5');
    expect(usageError(['--drain-quiet', '1', 'x'])).toBe('drain-quiet 1 is longer than drain-delay 0, its cap: give --drain-delay at least 1');
    expect(usageError(['x'], { SEXTON_DRAIN_QUIET: '2', SEXTON_DRAIN_DELAY: '1' })).toMatch(/drain-quiet 2 .* drain-delay 1/);
  });
});
