// Signal names and numbers, as pure policy; and the real-time range against the C library's.
import { expect, test } from 'vitest';
import { loadNative } from '../../../src/platform/load-native';
import { parseSignal, realtimeRange, signalName } from '../../../src/platform/signals';

test('names, SIG names, numbers and real-time offsets', () => {
  expect(parseSignal('TERM')).toBe(15);
  expect(parseSignal('sigterm')).toBe(15);
  expect(parseSignal(' 9 ')).toBe(9);
  expect(parseSignal('RTMIN+3')).toBe(realtimeRange().rtmin + 3);
  expect(parseSignal('SIGRTMAX-1')).toBe(63);
  expect(parseSignal('NOPE')).toBeUndefined();
  expect(parseSignal('0')).toBeUndefined();
  expect(parseSignal('32')).toBeUndefined();  // the C library's own
  expect(parseSignal('65')).toBeUndefined();
});

test('every signal number has one name that parses back to it', () => {
  const { rtmin, rtmax } = realtimeRange();
  for (let n = 1; n <= rtmax; n++) {
    if (n >= 32 && n < rtmin) continue;
    expect(parseSignal(signalName(n)), signalName(n)).toBe(n);
  }
  expect(signalName(6)).toBe('ABRT');  // not IOT
});

test("the real-time range is the C library's (asked through the addon)", () => {
  expect(realtimeRange()).toEqual(loadNative().signalRange());
});
