// The readiness policy: the sd_notify parser, readiness, who may notify.
import { describe, expect, it } from 'vitest';
import { healthOf, inMainTree, parseNotification, ReadyWhen, STATUS_MAX_CHARS } from '../../../src/init/readiness';
import { Lifecycle } from '../../../src/init/lifecycle';
import type { Notification } from '../../../src/init/lifecycle';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('sd_notify datagrams', () => {
  it('reads the keys sexton acts on and leaves the others', () => {
    expect(parseNotification(bytes('READY=1\nSTATUS=Serving 3 clients\nMAINPID=7\n'))).toEqual({ ready: true, status: 'Serving 3 clients' });
    expect(parseNotification(bytes('STOPPING=1'))).toEqual({ stopping: true });
    expect(parseNotification(bytes('RELOADING=1\nMONOTONIC_USEC=5'))).toEqual({ reloading: true });
    expect(parseNotification(bytes('WATCHDOG=1'))).toEqual({});
    expect(parseNotification(bytes('READY=0'))).toEqual({ ready: false });
  });

  it('calls malformed what is not KEY=VALUE lines of UTF-8', () => {
    for (const bad of ['', '\n', 'READY', '=1', 'ready=1', 'READY=1\n\nSTATUS=x', 'READY=1\0']) expect(parseNotification(bytes(bad))).toBe('malformed');
    expect(parseNotification(Uint8Array.from([0x52, 0x3d, 0xff]))).toBe('malformed');
  });

  it('keeps STATUS on one line and short', () => {
    expect(parseNotification(bytes('STATUS=a\tb\u001b[31m'))).toEqual({ status: 'a?b?[31m' });
    const long = parseNotification(bytes(`STATUS=${'x'.repeat(1000)}`)) as { status: string };
    expect(long.status).toHaveLength(STATUS_MAX_CHARS + 1);
  });
});

/** Readiness as a reader of the lifecycle's state: the child's start and exit, the app's datagrams. */
function readiness(readyWhen: ReadyWhen, stopSignals: () => number) {
  const lifecycle = new Lifecycle({ drainDelay: 0, drainQuiet: 0, grace: 10, stopSignalName: 'SIGTERM', isInit: true });
  return {
    started: () => lifecycle.step({ kind: 'started', pid: 7 }),
    mainExited: () => lifecycle.step({ kind: 'main-exited', lastChild: false, leftovers: 0, exit: { exitCode: 0, signal: 0 } }),
    notified: (notification: Notification) => lifecycle.step({ kind: 'app-notified', notification }),
    state: () => healthOf(lifecycle.state, readyWhen, stopSignals()),
  };
}

describe('readiness', () => {
  it('follows the child, the app and the stop signal', () => {
    let stops = 0;
    const r = readiness('notify', () => stops);
    expect(r.state()).toMatchObject({ live: true, ready: false, reason: 'starting' });
    r.started();
    expect(r.state()).toMatchObject({ ready: false, reason: 'waiting for READY=1 from the app' });
    r.notified({ ready: true, status: 'up' });
    expect(r.state()).toEqual({ live: true, ready: true, reason: 'the app sent READY=1 (app: up)' });
    r.notified({ reloading: true });
    expect(r.state().ready).toBe(false);
    r.notified({ ready: true });
    stops = 1;
    expect(r.state()).toMatchObject({ live: true, ready: false, reason: 'stopping: the stop signal arrived (app: up)' });
  });

  it('is ready once started by default, and not once the main child is gone', () => {
    const r = readiness('started', () => 0);
    r.started();
    expect(r.state().ready).toBe(true);
    r.notified({ stopping: true });
    expect(r.state().reason).toBe('stopping: the app sent STOPPING=1');
    const gone = readiness('started', () => 0);
    gone.started();
    gone.mainExited();
    expect(gone.state()).toMatchObject({ ready: false, reason: 'the main child has exited' });
  });
});

describe('who may notify', () => {
  const table = new Map([[20, 10], [30, 20], [40, 1], [50, 0]]);
  const read = (pid: number) => (table.has(pid) ? { pid, ppid: table.get(pid) as number, pgid: pid, state: 'S', name: 'x', startTime: 0, killPending: false } : undefined);
  it('the main child and its tree; a sender already gone; not a process beside it', () => {
    expect(inMainTree(10, 10, true, read)).toBe(true);
    expect(inMainTree(30, 10, true, read)).toBe(true);
    expect(inMainTree(99, 10, true, read)).toBe(true);
    expect(inMainTree(40, 10, true, read)).toBe(false);
    expect(inMainTree(50, 10, true, read)).toBe(false);
    expect(inMainTree(30, 10, false, read)).toBe(false);
  });
});
