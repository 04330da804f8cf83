// `sexton probe`'s command line: timeout(1)-like options and where the command is looked for.
import { describe, expect, it } from 'vitest';
import { parseProbeArgs, ProbeUsageError, searchCandidates } from '../../../src/probe/options';

describe('sexton probe options', () => {
  it('takes timeout(1)-like options and the command', () => {
    expect(parseProbeArgs(['--timeout', '2.5', '--kill-after=1', '--', 'curl', '-f', 'x'])).toEqual({ timeout: 2.5, killAfter: 1, command: ['curl', '-f', 'x'] });
    expect(parseProbeArgs(['true'])).toEqual({ timeout: 10, killAfter: 1, command: ['true'] });
    expect(parseProbeArgs(['--help'])).toBe('help');
    for (const bad of [[], ['--'], ['--timeout', '0', 'x'], ['--timeout', '-1', 'x'], ['--bogus', 'x'], ['--kill-after']]) {
      expect(() => parseProbeArgs(bad)).toThrow(ProbeUsageError);
    }
    expect(searchCandidates('curl', '/a::/b')).toEqual(['/a/curl', './curl', '/b/curl']);
    expect(searchCandidates('./x', '/a')).toEqual(['./x']);
  });
});
