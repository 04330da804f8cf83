// When a draining pod is quiet, as pure policy over samples of its network namespace.
import { describe, expect, test } from 'vitest';
import { TCP_LISTEN, TcpSocket } from '../../../src/platform/tcp-sockets';
import { arrivalsBetween, listeningPorts, QuietWindow, sampleIntervalMs, TrafficSample } from '../../../src/init/drain';
import { describeDrain, describeLateArrivals, DrainEndReason } from '../../../src/report/stats';
import type { DrainWindow } from '../../../src/init/lifecycle';

const ESTABLISHED = 1;
const listener = (port: number, queued = 0): TcpSocket => ({ state: TCP_LISTEN, localPort: port, cookie: port, bytesReceived: 0, queued });
const connection = (port: number, cookie: number, bytesReceived: number): TcpSocket => ({ state: ESTABLISHED, localPort: port, cookie, bytesReceived, queued: 0 });
const sample = (at: number, passiveOpens: number, sockets: TcpSocket[], ownAccepted = 0, outRsts = 0): TrafficSample => ({
  at, counters: { passiveOpens, outRsts }, sockets, ownAccepted,
});
const APP = new Set([8080]);
const OWN = new Set([9102]);

describe('what reached the app between two samples', () => {
  test('new connections: PassiveOpens, less those sexton accepted itself or has waiting', () => {
    const before = sample(0, 100, [listener(8080), listener(9102)], 5);
    expect(arrivalsBetween(before, sample(100, 103, [listener(8080), listener(9102)], 7), APP, OWN)).toEqual({ connections: 1, requests: 0, resets: 0 });
    // A probe waiting in sexton's accept queue is sexton's, not the app's.
    expect(arrivalsBetween(before, sample(100, 101, [listener(8080), listener(9102, 1)], 5), APP, OWN)?.connections).toBe(0);
  });

  test('data on a connection already open (a pooled one) is a request; a new socket with data too', () => {
    const before = sample(0, 10, [listener(8080), connection(8080, 1, 500), connection(8080, 2, 500)]);
    const after = sample(100, 10, [listener(8080), connection(8080, 1, 900), connection(8080, 2, 500), connection(8080, 3, 80)]);
    expect(arrivalsBetween(before, after, APP, OWN)).toEqual({ connections: 0, requests: 2, resets: 0 });
  });

  test("sexton's own listeners, and the app's outbound connections, are not the app's traffic", () => {
    const before = sample(0, 10, [listener(8080), listener(9102), connection(9102, 1, 0), connection(41000, 2, 0)]);
    const after = sample(100, 10, [listener(8080), listener(9102), connection(9102, 1, 300), connection(41000, 2, 7000)]);
    expect(arrivalsBetween(before, after, APP, OWN)).toEqual({ connections: 0, requests: 0, resets: 0 });
    expect(listeningPorts(after, OWN)).toEqual([8080]);
  });

  test('resets sent are counted; an unreadable sample gives no answer', () => {
    expect(arrivalsBetween(sample(0, 1, [], 0, 4), sample(100, 1, [], 0, 9), APP, OWN)?.resets).toBe(5);
    expect(arrivalsBetween(sample(0, 1, []), { at: 100, ownAccepted: 0 }, APP, OWN)).toBeUndefined();
  });
});

describe('the quiet window', () => {
  const none = { connections: 0, requests: 0, resets: 0 };
  const one = { connections: 0, requests: 1, resets: 0 };
  /** The lifecycle's window of a drain started at `startedAt`, as it keeps it. */
  const stop = (startedAt: number): DrainWindow => ({ startedAt });
  /** What the lifecycle records when it ends the drain. */
  const end = (drain: DrainWindow, endedBy: DrainEndReason, endedAt: number) => Object.assign(drain, { endedBy, endedAt });

  test('quiet once nothing came for the window since the stop signal, or since the last traffic', () => {
    const window = new QuietWindow(2000, 10_000, stop(1000), 'traffic');
    expect(window.observe(one, 1500)).toBe(false);
    expect(window.observe(none, 3400)).toBe(false);
    expect(window.observe(none, 3500)).toBe(true);
    expect(new QuietWindow(2000, 10_000, stop(1000), 'traffic').observe(none, 3000)).toBe(true);
  });

  test('an unreadable sample counts as traffic; blind (host network) is never quiet', () => {
    const window = new QuietWindow(2000, 10_000, stop(0), 'traffic');
    window.observe(undefined, 1900);
    expect(window.observe(none, 3000)).toBe(false);
    expect(window.report().unreadSamples).toBe(1);
    expect(new QuietWindow(2000, 10_000, stop(0), 'blind').observe(none, 9000)).toBe(false);
  });

  test('after the forward: arrivals are counted, and the report says how the drain went', () => {
    const drain = stop(1000);
    const window = new QuietWindow(2000, 10_000, drain, 'traffic');
    window.observe(one, 2500);
    window.observe(none, 4500);
    end(drain, 'quiet', 4500);
    window.observe({ connections: 2, requests: 3, resets: 1 }, 4600);
    window.observe({ connections: 1, requests: 0, resets: 0 }, 4700);
    const report = window.report();
    expect(report).toEqual({
      quietSeconds: 2, capSeconds: 10, watch: 'traffic', waitedSeconds: 3.5, lastTrafficSeconds: 1.5, endedBy: 'quiet', unreadSamples: 0,
      afterForward: { connections: 3, requests: 3, resets: 1 },
    });
    expect(describeDrain(report)).toBe('drain: forwarding the stop signal, waited 3.50s (quiet for 2s); last traffic 1.50s after the stop signal');
    expect(describeLateArrivals(report)).toMatch(/^drain: 3 connection\(s\) and 3 request\(s\) reached the app after the stop signal was forwarded/);
  });

  test('the cap: cut short while traffic went on, or blind', () => {
    const drain = stop(0);
    const window = new QuietWindow(2000, 5000, drain, 'traffic');
    window.observe(one, 4900);
    end(drain, 'cap', 5000);
    expect(describeDrain(window.report())).toBe('drain: forwarding the stop signal, waited 5.00s (cut short by the 5s cap: traffic had not stopped); last traffic 4.90s after the stop signal');
    const blind = new QuietWindow(2000, 5000, end(stop(0), 'cap', 5000), 'blind');
    expect(describeDrain(blind.report())).toContain('(the 5s cap (host network: quiet cannot be told)); no traffic after the stop signal');
    expect(describeLateArrivals(blind.report())).toBeUndefined();
  });
});

test('samples: a few per window, never more often than every 50 ms nor rarer than every 250 ms', () => {
  expect(sampleIntervalMs(0.1)).toBe(50);
  expect(sampleIntervalMs(0.5)).toBe(100);
  expect(sampleIntervalMs(30)).toBe(250);
});
