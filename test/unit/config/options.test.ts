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
