// Bytes and values through the option parser, at unit level: thousands of random argv vectors and SEXTON_* environments
// through parseArgs. Every one parses or is a UsageError (never another exception), and every
// message echoes input as one bounded, printable line. Seeded: a failure names its seed.
import { describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from '../../../src/config/options';
import { ArgvFuzz, messageProblems } from '../../support/argv-fuzz';

const VECTORS = 10_000;
const SEED = 0x5e7709;

describe('parseArgs under a fuzz of argv vectors', () => {
  it(`${VECTORS} vectors: no crash, every message one printable bounded line`, () => {
    const fuzz = new ArgvFuzz(SEED);
    const bad: string[] = [];
    let usageErrors = 0;
    const began = Date.now();
    for (let i = 0; i < VECTORS; i++) {
      const argv = fuzz.argv('true') as string[];
      const env = fuzz.env() as Record<string, string>;
      try {
        parseArgs(argv, env);
      } catch (error) {
        if (!(error instanceof UsageError)) {
          bad.push(`#${i} crashed (${(error as Error).stack?.split('\n')[0]}): ${JSON.stringify({ argv, env }).slice(0, 300)}`);
          continue;
        }
        usageErrors++;
        const problems = messageProblems(error.message);
        if (problems.length > 0) bad.push(`#${i} ${problems.join(', ')}: ${JSON.stringify(error.message).slice(0, 300)}`);
      }
    }
    expect(bad.slice(0, 20), `seed ${SEED}: ${bad.length} bad of ${VECTORS}`).toEqual([]);
    // The fuzz reaches the error paths: most vectors are bad input somewhere.
    expect(usageErrors).toBeGreaterThan(VECTORS / 2);
    expect(Date.now() - began).toBeLessThan(20_000);
  });
});

describe('empty values are usage errors, not defaults', () => {
  const cases: [string, string[], Record<string, string>][] = [
    ['--grace=', ['--grace=', '--', 'true'], {}],
    ["-t ''", ['-t', '', '--', 'true'], {}],
    ['--stop-signal=', ['--stop-signal=', '--', 'true'], {}],
    ['--metrics=', ['--metrics=', '--', 'true'], {}],
    ['--stats-file=', ['--stats-file=', '--', 'true'], {}],
    ['-s followed by nothing', ['-s'], {}],
    ['SEXTON_GRACE=', ['--', 'true'], { SEXTON_GRACE: '' }],
    ['SEXTON_STOP_SIGNAL=', ['--', 'true'], { SEXTON_STOP_SIGNAL: '' }],
    ['SEXTON_METRICS=', ['--', 'true'], { SEXTON_METRICS: '' }],
    ['SEXTON_DRAIN_DELAY= (blank)', ['--', 'true'], { SEXTON_DRAIN_DELAY: '  ' }],
    ["sexton ''", [''], {}],
    ["sexton -- ''", ['--', ''], {}],
  ];
  for (const [name, argv, env] of cases) {
    it(name, () => {
      expect(() => parseArgs(argv, env)).toThrow(UsageError);
    });
  }

  it('an empty variable is an error even where a flag would win over it (it is a typo either way)', () => {
    expect(() => parseArgs(['--grace', '3', '--', 'true'], { SEXTON_GRACE: '' })).toThrow(/SEXTON_GRACE is set but empty/);
    expect(() => parseArgs(['--', 'true'], { SEXTON_QUIET: '' })).toThrow(/SEXTON_QUIET is set but empty/);
    expect(() => parseArgs(['--', 'true'], { SEXTON_REWRITE: ' ' })).toThrow(/SEXTON_REWRITE is set but empty/);
  });
});
