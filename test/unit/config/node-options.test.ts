// Which NODE_OPTIONS the init sheds (src/boot/guards.ts re-executes sexton without them) and so
// which it runs, and its code cache is trained, under (src/boot/code-cache-train.ts).
import { describe, expect, it } from 'vitest';
import { nodeOptionsOfInit, putsCodeInPid1 } from '../../../src/config/node-options';

describe('NODE_OPTIONS of the init', () => {
  it.each([
    '--require /apm.js', '-r /apm.js', '--require=/apm.js', '--import ./otel.mjs', '--loader ts-node/esm',
    '--experimental-loader x.mjs', '--inspect', '--inspect-brk=0.0.0.0:9229', '--max-old-space-size=256 --require /apm.js',
  ])('%s puts code into PID 1: shed, the init runs with none', (options) => {
    expect(putsCodeInPid1(options)).toBe(true);
    expect(nodeOptionsOfInit(options)).toBeUndefined();
  });

  it.each(['--max-old-space-size=256', '--enable-source-maps', '--no-warnings', '--stack-trace-limit=50', '--required-flag-lookalike'])(
    '%s stays: the init runs under it',
    (options) => {
      expect(putsCodeInPid1(options)).toBe(false);
      expect(nodeOptionsOfInit(options)).toBe(options);
    },
  );

  it('none, or empty, is none', () => {
    expect(nodeOptionsOfInit(undefined)).toBeUndefined();
    expect(nodeOptionsOfInit('')).toBeUndefined();
  });
});
