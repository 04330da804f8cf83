// The logger's policy over a sink that can refuse or take part of a line (the real sink is
// native/log_sink.cc; test/faults/stderr.test.ts runs it against a pipe nobody reads).
import { describe, expect, it, test } from 'vitest';
import { DEFAULT, EveryNowAndThen, Logger } from '../../../src/platform/log';

/** A sink that takes at most `room()` bytes per write, like a full pipe or a stream socket. */
function sink(room: () => number) {
  let out = '';
  const write = (text: string) => {
    const n = Math.min(room(), Buffer.byteLength(text));
    if (n === 0) return -11;  // EAGAIN
    out += Buffer.from(text).subarray(0, n).toString();
    return n;
  };
  return { write, out: () => out };
}

test('lines stderr has no room for are dropped, counted, and said once there is room again', () => {
  let room = 0;
  const s = sink(() => room);
  const log = new Logger(DEFAULT, 'text', s.write);
  log.warn('one');
  log.warn('two');
  expect(log.droppedLines).toBe(2);
  room = 1000;
  log.warn('three');
  log.warn('four');
  expect(s.out()).toBe('sexton: 2 log line(s) dropped: stderr was not taking them\nsexton: three\nsexton: four\n');
  expect(log.droppedLines).toBe(2);
});

test('a line a stream took only part of is ended before the next one', () => {
  let room = 5;
  const s = sink(() => room);
  const log = new Logger(DEFAULT, 'text', s.write);
  log.warn('cut short');
  room = 1000;
  log.warn('next');
  expect(s.out()).toBe('sexto\nsexton: next\n');
});

test('a message is cut to a length a pipe takes whole', () => {
  const s = sink(() => 1 << 20);
  new Logger(DEFAULT, 'text', s.write).warn('x'.repeat(100_000));
  expect(Buffer.byteLength(s.out())).toBeLessThan(4096);
});

test('a JSON line stays within what a pipe takes whole: big fields are dropped, the message kept', () => {
  const s = sink(() => 1 << 20);
  const log = new Logger(DEFAULT, 'json', s.write);
  log.warn('\x01'.repeat(1000), { commands: Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`command-${i}`, i])) });
  expect(Buffer.byteLength(s.out())).toBeLessThanOrEqual(4096);
  expect(JSON.parse(s.out())).toMatchObject({ level: 'warn', fieldsDropped: true });
  expect(JSON.parse(s.out()).message).toHaveLength(601);  // 600 and the ellipsis
});

describe('EveryNowAndThen', () => {
  it('tells the first of a kind at once, then once per interval with the count since', () => {
    let now = 1000;
    const limiter = new EveryNowAndThen(60_000, () => now);
    expect(limiter.tell('cap')).toBe(1);
    for (let i = 0; i < 500; i++) expect(limiter.tell('cap')).toBeUndefined();
    expect(limiter.tell('accept EMFILE')).toBe(1);  // kinds are counted apart
    now += 59_999;
    expect(limiter.tell('cap')).toBeUndefined();
    now += 1;
    expect(limiter.tell('cap')).toBe(502);
    expect(limiter.tell('cap')).toBeUndefined();
    now += 60_000;
    expect(limiter.tell('cap')).toBe(2);
  });
});
