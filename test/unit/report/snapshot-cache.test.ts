// The shared snapshot's interval policy (src/report/snapshot-cache.ts): however many readers
// ask, one snapshot an interval; each text made from it once.
import { describe, expect, it } from 'vitest';
import { isStale, SnapshotCache } from '../../../src/report/snapshot-cache';

function counting(intervalMs: number) {
  let now = 5000;
  let taken = 0;
  const cache = new SnapshotCache(() => ({ n: ++taken }), intervalMs, () => now);
  return { cache, advance: (ms: number) => (now += ms), taken: () => taken, setNow: (ms: number) => (now = ms) };
}

describe('isStale', () => {
  it('is stale with nothing taken, at the interval and past it, and when the clock runs back', () => {
    expect(isStale(undefined, 0, 1000)).toBe(true);
    expect(isStale(100, 1099, 1000)).toBe(false);
    expect(isStale(100, 1100, 1000)).toBe(true);
    expect(isStale(100, 50, 1000)).toBe(true);
  });
});

describe('SnapshotCache', () => {
  it('takes one snapshot an interval for any number of readers', () => {
    const { cache, advance, taken } = counting(1000);
    for (let i = 0; i < 10_000; i++) cache.get();
    expect(taken()).toBe(1);
    advance(999);
    expect(cache.get()).toEqual({ n: 1 });
    advance(1);
    expect(cache.get()).toEqual({ n: 2 });
    // 10 s of a reader every millisecond: 10 snapshots.
    for (let i = 0; i < 10_000; i++) {
      advance(1);
      cache.get();
    }
    expect(taken()).toBe(12);
  });

  it('takes a fresh one when asked (the final write), and shares it from then on', () => {
    const { cache, advance, taken } = counting(1000);
    cache.get();
    advance(10);
    expect(cache.fresh()).toEqual({ n: 2 });
    advance(990);
    expect(cache.get()).toEqual({ n: 2 });
    expect(taken()).toBe(2);
  });

  it('makes each derived text once per snapshot', () => {
    const { cache, advance } = counting(1000);
    let renders = 0;
    const text = cache.derived((s) => `${++renders}:${s.n}`);
    for (let i = 0; i < 100; i++) expect(text()).toBe('1:1');
    advance(1000);
    expect(text()).toBe('2:2');
    cache.fresh();
    expect(text()).toBe('3:3');
    expect(renders).toBe(3);
  });

  it('shares a failure for the interval too: a flood does not retry a failing scan per reader', () => {
    let now = 0;
    let fail = true;
    let taken = 0;
    const cache = new SnapshotCache(() => {
      taken++;
      if (fail) throw new Error('EMFILE');
      return { ok: true };
    }, 1000, () => now);
    for (let i = 0; i < 100; i++) expect(() => cache.get()).toThrow('EMFILE');
    expect(taken).toBe(1);
    fail = false;
    now += 1000;
    expect(cache.get()).toEqual({ ok: true });
    expect(taken).toBe(2);
  });
});
