// Internal errors as one line (src/init/internal-error.ts): escaped, no path of the machine
// sexton was built on, the stack only at -vv.
import { expect, test } from 'vitest';
import { internalErrorText } from '../../../src/init/internal-error';
import { DEBUG, DEFAULT, VERBOSE } from '../../../src/platform/log';

const ROOT = '/work/build/sexton';

function thrownAt(): Error {
  const error = new TypeError('cannot read x\nof undefined');
  error.stack = `TypeError: cannot read x\nof undefined\n    at Supervisor.act (${ROOT}/dist/init.js:10:5)\n    at listOnTimeout (node:internal/timers:573:17)\n    at file://${ROOT}/dist/init.js:20:1`;
  return error;
}

test('by default: name and message on one escaped line, no stack, no build path', () => {
  for (const verbosity of [0, DEFAULT, VERBOSE]) {
    expect(internalErrorText(thrownAt(), verbosity, ROOT)).toBe('TypeError: cannot read x\\nof undefined');
  }
  const withPath = new Error(`Cannot find module '${ROOT}/dist/exporters.js'`);
  expect(internalErrorText(withPath, DEFAULT, ROOT)).toBe("Error: Cannot find module \\'dist/exporters.js\\'");
});

test('at -vv: the frames follow on the same line, paths relative to the package', () => {
  const text = internalErrorText(thrownAt(), DEBUG, ROOT);
  expect(text).toBe('TypeError: cannot read x\\nof undefined | at Supervisor.act (dist/init.js:10:5) | at listOnTimeout (node:internal/timers:573:17) | at dist/init.js:20:1');
  expect(text).not.toContain(ROOT);
  expect(text).not.toMatch(/\n/);
});

test('what is not an Error, or cannot be described, is still one line', () => {
  expect(internalErrorText('a\u2028b', DEFAULT, ROOT)).toBe('a\\u{2028}b');
  expect(internalErrorText(undefined, DEFAULT, ROOT)).toBe('undefined');
  const hostile = { toString() { throw new Error('no'); } };
  expect(internalErrorText(hostile, DEFAULT, ROOT)).toBe('an error that cannot be described');
});

test('a huge message is cut', () => {
  const text = internalErrorText(new Error('x'.repeat(5000)), DEFAULT, ROOT);
  expect(text.length).toBeLessThan(1000);
  expect(text).toMatch(/…\(\d+ more\)$/);
});
