// The one typed boundary: the addon exports exactly the functions Native declares, and a wrong
// call throws a TypeError that names the call, instead of crashing or passing a bad value on.
// What the policy takes as a fact of the C library, the addon confirms. (The addon itself is
// loaded here, not in the unit tier, which loads nothing native.)
import { expect, test } from 'vitest';
import { loadNative } from '../../src/platform/load-native';
import { NATIVE_FUNCTIONS } from '../../src/platform/native';
import { realtimeRange } from '../../src/platform/signals';

const native = loadNative() as unknown as Record<string, (...args: unknown[]) => unknown>;

test("the addon's exports and Native's keys are one set", () => {
  expect(Object.keys(native).sort()).toEqual([...NATIVE_FUNCTIONS].sort());
});

test.each([
  ['setSignalNotify', ['TERM', true], /setSignalNotify\(signal: number, on: boolean\): argument 1 must be a number/],
  ['setSignalNotify', [99, true], /argument 1 must be a whole number from 1 to 64/],
  ['setSignalAction', [15, 1.5], /argument 2 must be a whole number/],
  ['signalProcess', [0, 15, 0], /argument 1 must be a whole number from 1/],
  ['signalProcess', [-1, 9, 0], /argument 1 must be a whole number from 1/],
  ['signalEveryProcess', [], /argument 1 must be a number/],
  ['writeLog', [{}], /argument 1 must be a string or a Buffer/],
  ['openLogSink', [-1], /argument 1 must be a whole number from 0/],
  ['errorText', ['x'], /argument 1 must be a number/],
  ['receiveNotifications', [0], /receiveNotifications\(max: 1\.\.1024\): argument 1 must be a whole number from 1 to 1024/],
  ['signalsReceived', [65], /signalsReceived\(signal: 1\.\.64\): argument 1 must be a whole number from 1 to 64/],
  ['openNotifySocket', ['@'], /is not a Unix socket address/],
  ['openNotifySocket', [`/${'x'.repeat(120)}`], /is not a Unix socket address/],
  ['execSelf', [['node', 5], []], /argument 1 must be an array of strings or Buffers/],
  ['spawn', [[], ['x']], /must not be empty/],
  ['spawn', [['x'], 'x'], /argument 2 must be an array/],
  ['spawn', [['x'], ['x'], 5000], /argument 3 must be a whole number from -1000 to 1000/],
  ['startReaper', [42], /argument 1 must be a function/],
  ['watchOomEvents', ['/nonexistent', 'yes'], /argument 2 must be a boolean/],
  ['peerCredentials', [null], /argument 1 must be a number/],
  ['exit', [300], /argument 1 must be a whole number from 0 to 255/],
  ['tcpSockets', [0], /tcpSockets\(limit: 1\.\.1048576\): argument 1 must be a whole number from 1/],
  ['tcpSockets', ['64'], /argument 1 must be a number/],
])('%s(%j) throws a TypeError with its usage', (name, args, message) => {
  expect(() => native[name](...args)).toThrow(TypeError);
  expect(() => native[name](...args)).toThrow(message);
});

test('a right call still works', () => {
  expect(native.errorText(2)).toBe('No such file or directory');
  expect(native.signalRange()).toMatchObject({ rtmin: expect.any(Number), rtmax: 64 });
});

test("the real-time range is the C library's (asked through the addon)", () => {
  expect(realtimeRange()).toEqual(loadNative().signalRange());
});

test('the stop deadline is checked where it crosses into the addon: C never gets a line that is two lines', () => {
  // Signal 64, should the check be missing: no one sends it to the test's worker.
  expect(() => native.setStopDeadline(64, 1000, 124, 'two\nlines\n', false, true, false, 0, 'a\n', 'b\n', Buffer.alloc(256)))
    .toThrow(/stop deadline: each line must be one line/);
});
