// The stop sequence as pure policy: inputs in, actions out, no process and no clock.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, test } from 'vitest';
import { Action, KILL_REPEAT_SECONDS, Lifecycle, LifecycleSettings } from '../../../src/init/lifecycle';

const settings = (over: Partial<LifecycleSettings> = {}): LifecycleSettings => ({
  drainDelay: 0, drainQuiet: 0, grace: 10, stopSignalName: 'TERM', isInit: true, ...over,
});

function running(over: Partial<LifecycleSettings> = {}): Lifecycle {
  const lifecycle = new Lifecycle(settings(over));
  lifecycle.step({ kind: 'started' });
  return lifecycle;
}

/** The main child's status: what the lifecycle decides does not depend on it. */
const exit = { exitCode: 0, signal: 0 };

const kinds = (actions: Action[]) => actions.map((a) => (a.kind === 'start-timer' || a.kind === 'cancel-timer' ? `${a.kind}:${a.timer}` : a.kind));

describe('a stop signal', () => {
  test('without a drain delay: report zombie parents, TERM the daemons, start the grace period', () => {
    const lifecycle = running();
    const actions = lifecycle.step({ kind: 'stop-signal' });
    expect(kinds(actions)).toEqual(['report-zombie-parents', 'log', 'terminate-daemons', 'start-timer:grace']);
    expect(actions).toContainEqual({ kind: 'start-timer', timer: 'grace', seconds: 10 });
    expect(lifecycle.phase).toBe('stopping');
    // The handler forwards it: the lifecycle never sends it again without a drain delay; it
    // only asks that the steps which failed be tried again.
    expect(kinds(lifecycle.step({ kind: 'stop-signal' }))).toEqual(['retry-failed-steps']);
  });

  test('with a drain delay: wait, then forward it and start the grace period', () => {
    const lifecycle = running({ drainDelay: 5 });
    expect(kinds(lifecycle.step({ kind: 'stop-signal' }))).toEqual(['report-zombie-parents', 'log', 'start-timer:drain']);
    expect(lifecycle.phase).toBe('draining');
    expect(kinds(lifecycle.step({ kind: 'timer', timer: 'drain' }))).toEqual(['forward-stop-signal', 'terminate-daemons', 'start-timer:grace']);
    expect(lifecycle.phase).toBe('stopping');
    // Repeated stop signals reach the child, as they would without a delay.
    expect(kinds(lifecycle.step({ kind: 'stop-signal' }))).toEqual(['forward-stop-signal', 'retry-failed-steps']);
  });

  test('a second one during the drain delay skips the rest of it', () => {
    const lifecycle = running({ drainDelay: 5 });
    lifecycle.step({ kind: 'stop-signal' });
    const actions = lifecycle.step({ kind: 'stop-signal' });
    expect(kinds(actions)).toEqual(['log', 'cancel-timer:drain', 'forward-stop-signal', 'terminate-daemons', 'start-timer:grace']);
    expect(lifecycle.step({ kind: 'timer', timer: 'drain' })).toEqual([]);  // a late timer does nothing
  });

  test('after the main child exited, it starts nothing new: failed steps are tried again', () => {
    const lifecycle = running();
    lifecycle.step({ kind: 'main-exited', lastChild: false, leftovers: 2, exit });
    expect(kinds(lifecycle.step({ kind: 'stop-signal' }))).toEqual(['retry-failed-steps']);
  });

  test('while killing, a repeated one still asks for the failed steps again', () => {
    const lifecycle = running();
    lifecycle.step({ kind: 'stop-signal' });
    lifecycle.step({ kind: 'timer', timer: 'grace' });
    expect(kinds(lifecycle.step({ kind: 'stop-signal' }))).toEqual(['retry-failed-steps']);
    expect(lifecycle.phase).toBe('killing');
  });
});

describe('the main child exits', () => {
  test('as the last child: finish at once', () => {
    expect(kinds(running().step({ kind: 'main-exited', lastChild: true, leftovers: 0, exit }))).toEqual(['cancel-timer:drain', 'finish']);
  });

  test('with nothing live left: wait for the reaper to say no child is left, then finish', () => {
    const lifecycle = running();
    expect(kinds(lifecycle.step({ kind: 'main-exited', lastChild: false, leftovers: 0, exit }))).toEqual(['cancel-timer:drain']);
    expect(kinds(lifecycle.step({ kind: 'no-children' }))).toEqual(['finish']);
  });

  test('with leftovers while running: report, TERM them, start a fresh grace period', () => {
    const lifecycle = running();
    const actions = lifecycle.step({ kind: 'main-exited', lastChild: false, leftovers: 3, exit });
    expect(kinds(actions)).toEqual(['cancel-timer:drain', 'report-zombie-parents', 'log', 'terminate-leftovers', 'start-timer:grace']);
    expect(actions).toContainEqual({ kind: 'log', level: 'warn', message: 'main child is gone; 3 process(es) left: sending TERM, grace period 10s' });
  });

  test('with leftovers while stopping: TERM them within the grace period already running', () => {
    const lifecycle = running();
    lifecycle.step({ kind: 'stop-signal' });
    expect(kinds(lifecycle.step({ kind: 'main-exited', lastChild: false, leftovers: 1, exit }))).toEqual(['cancel-timer:drain', 'log', 'terminate-leftovers']);
  });

  test('unseen (/proc is not ours): PID 1 TERMs its namespace; a subreaper cannot', () => {
    expect(kinds(running().step({ kind: 'main-exited', lastChild: false, leftovers: 'unseen', exit })))
      .toEqual(['cancel-timer:drain', 'log', 'terminate-unseen', 'start-timer:grace']);
    expect(kinds(running({ isInit: false }).step({ kind: 'main-exited', lastChild: false, leftovers: 'unseen', exit }))).toEqual(['cancel-timer:drain']);
  });

  test('while killing: nothing more to start', () => {
    const lifecycle = running();
    lifecycle.step({ kind: 'stop-signal' });
    lifecycle.step({ kind: 'timer', timer: 'grace' });
    expect(kinds(lifecycle.step({ kind: 'main-exited', lastChild: false, leftovers: 1, exit }))).toEqual(['cancel-timer:drain']);
  });
});

test('the grace period ends: kill survivors, repeat, and leave at the backstop', () => {
  const lifecycle = running();
  lifecycle.step({ kind: 'stop-signal' });
  expect(kinds(lifecycle.step({ kind: 'timer', timer: 'grace' }))).toEqual(['kill-survivors', 'start-timer:kill-repeat', 'start-timer:kill-check', 'start-timer:backstop']);
  expect(kinds(lifecycle.step({ kind: 'timer', timer: 'kill-check' }))).toEqual(['report-unkillable']);
  expect(lifecycle.phase).toBe('killing');
  expect(kinds(lifecycle.step({ kind: 'timer', timer: 'backstop' }))).toEqual(['log', 'finish']);
});

test('the kill round repeats at one pace in the init and in `sexton probe` (native/end_tree.h)', () => {
  const header = readFileSync(path.join(__dirname, '../../../native/end_tree.h'), 'utf8');
  expect(Number(/kKillRepeatSeconds = ([\d.]+);/.exec(header)?.[1])).toBe(KILL_REPEAT_SECONDS);
  const grace = running();
  grace.step({ kind: 'stop-signal' });
  expect(grace.step({ kind: 'timer', timer: 'grace' })).toContainEqual({ kind: 'start-timer', timer: 'kill-repeat', seconds: KILL_REPEAT_SECONDS });
});

test('no children before the main child exited is not the end', () => {
  expect(running().step({ kind: 'no-children' })).toEqual([]);
});

describe('a drain that waits for quiet (--drain-quiet)', () => {
  const quiet = () => running({ drainDelay: 10, drainQuiet: 2 });

  test('the stop signal starts the cap and the traffic watch; quiet forwards it before the cap', () => {
    const lifecycle = quiet();
    const actions = lifecycle.step({ kind: 'stop-signal' });
    expect(kinds(actions)).toEqual(['report-zombie-parents', 'log', 'watch-traffic', 'start-timer:drain']);
    expect(actions).toContainEqual({ kind: 'start-timer', timer: 'drain', seconds: 10 });
    expect(actions).toContainEqual({ kind: 'log', level: 'warn', message: 'received TERM: stopping once no traffic reached the app for 2s (at most 10s), grace period 10s' });
    const forward = lifecycle.step({ kind: 'traffic-quiet' });
    expect(kinds(forward)).toEqual(['end-drain', 'cancel-timer:drain', 'forward-stop-signal', 'terminate-daemons', 'start-timer:grace']);
    expect(forward[0]).toEqual({ kind: 'end-drain', by: 'quiet' });
    expect(lifecycle.phase).toBe('stopping');
    expect(lifecycle.step({ kind: 'traffic-quiet' })).toEqual([]);  // once only
    expect(lifecycle.step({ kind: 'timer', timer: 'drain' })).toEqual([]);
  });

  test('the cap forwards it when traffic does not stop', () => {
    const lifecycle = quiet();
    lifecycle.step({ kind: 'stop-signal' });
    const actions = lifecycle.step({ kind: 'timer', timer: 'drain' });
    expect(kinds(actions)).toEqual(['end-drain', 'forward-stop-signal', 'terminate-daemons', 'start-timer:grace']);
    expect(actions[0]).toEqual({ kind: 'end-drain', by: 'cap' });
  });

  test('a second stop signal still skips the drain', () => {
    const lifecycle = quiet();
    lifecycle.step({ kind: 'stop-signal' });
    const actions = lifecycle.step({ kind: 'stop-signal' });
    expect(kinds(actions)).toEqual(['log', 'end-drain', 'cancel-timer:drain', 'forward-stop-signal', 'terminate-daemons', 'start-timer:grace']);
    expect(actions[1]).toEqual({ kind: 'end-drain', by: 'second-signal' });
  });

  test('the main child exiting during the drain ends it', () => {
    const lifecycle = quiet();
    lifecycle.step({ kind: 'stop-signal' });
    expect(kinds(lifecycle.step({ kind: 'main-exited', lastChild: true, leftovers: 0, exit }))).toEqual(['end-drain', 'cancel-timer:drain', 'finish']);
  });

  test('the drain is the lifecycle\'s: when it began, when and why it ended; it ends once', () => {
    const lifecycle = quiet();
    lifecycle.step({ kind: 'stop-signal' }, 1000);
    expect(lifecycle.state.drain).toEqual({ startedAt: 1000 });
    expect(kinds(lifecycle.step({ kind: 'main-exited', lastChild: false, leftovers: 0, exit }, 1500))).toEqual(['end-drain', 'cancel-timer:drain']);
    expect(lifecycle.state.drain).toEqual({ startedAt: 1000, endedAt: 1500, endedBy: 'main-exited' });
    expect(lifecycle.phase).toBe('stopping');  // no longer draining: nothing ends the drain again
    expect(lifecycle.step({ kind: 'traffic-quiet' }, 1600)).toEqual([]);
    expect(kinds(lifecycle.step({ kind: 'no-children' }))).toEqual(['finish']);
  });

  test('quiet before any stop signal, or without --drain-quiet, means nothing', () => {
    expect(quiet().step({ kind: 'traffic-quiet' })).toEqual([]);
    const fixed = running({ drainDelay: 5 });
    expect(kinds(fixed.step({ kind: 'stop-signal' }))).not.toContain('watch-traffic');
    expect(kinds(fixed.step({ kind: 'timer', timer: 'drain' }))).not.toContain('end-drain');
  });
});
