// The stop deadline as policy (src/init/stop-deadline.ts) and the steps that may fail on their
// own (src/init/executor.ts): no process, no clock.
import { describe, expect, test } from 'vitest';
import { KILL_BACKSTOP_SECONDS } from '../../../src/init/lifecycle';
import type { Action } from '../../../src/init/lifecycle';
import { StopSteps } from '../../../src/init/executor';
import {
  MAIN_EXIT_ANSWER_MS, mainExitMessages, STOP_DEADLINE_EXIT, STOP_DEADLINE_MARGIN_SECONDS, stopDeadlineFor, stopDeadlineMessage, stopDeadlineMilliseconds,
} from '../../../src/init/stop-deadline';
import { Logger } from '../../../src/platform/log';
import { checkStopDeadline } from '../../../src/platform/load-native';

const context = (over: Partial<Parameters<typeof stopDeadlineFor>[0]> = {}) => ({
  stopSignal: 15, stopSignalName: 'TERM', drainCap: 0, grace: 10, isInit: true, childGroup: true, procTrusted: true,
  remapExit: new Set<number>(), format: (message: string) => `sexton: ${message}\n`, ...over,
});

describe('the deadline', () => {
  test('is the drain cap, the grace period, the kill round backstop and a margin, after the lifecycle is done', () => {
    expect(KILL_BACKSTOP_SECONDS + STOP_DEADLINE_MARGIN_SECONDS).toBe(3);
    expect(stopDeadlineMilliseconds({ drainCap: 0, grace: 10 })).toBe(13_000);
    expect(stopDeadlineMilliseconds({ drainCap: 3, grace: 30 })).toBe(36_000);
    // The lifecycle's own last moment (drain, grace, SIGKILL, backstop) always comes first.
    for (const [drainCap, grace] of [[0, 0], [0, 0.001], [5, 0], [0.5, 1.25], [86400, 86400]]) {
      const jsLast = (drainCap + grace + KILL_BACKSTOP_SECONDS) * 1000;
      expect(stopDeadlineMilliseconds({ drainCap, grace })).toBeGreaterThanOrEqual(jsLast + 999);
    }
  });

  test('is rounded once, in milliseconds, and fits the timer the addon arms', () => {
    expect(stopDeadlineMilliseconds({ drainCap: 0.1, grace: 0.2 })).toBe(3_300);
    expect(stopDeadlineMilliseconds({ drainCap: 0.0004, grace: 0 })).toBe(3_000);
    const longest = stopDeadlineMilliseconds({ drainCap: 86400, grace: 86400 });
    expect(longest).toBe(172_803_000);
    expect(longest).toBeLessThan(2 ** 31);
  });

  test('exists only with a stop sequence (the peers\' personalities have stop signal 0)', () => {
    expect(stopDeadlineFor(context({ stopSignal: 0 }))).toBeUndefined();
  });

  test('as PID 1 kills the namespace; elsewhere the child, its group and what /proc shows', () => {
    expect(stopDeadlineFor(context())).toMatchObject({ killNamespace: true, walkProc: false, exitCode: STOP_DEADLINE_EXIT, milliseconds: 13_000 });
    expect(stopDeadlineFor(context({ isInit: false }))).toMatchObject({ killNamespace: false, walkProc: true, childGroup: true });
    expect(stopDeadlineFor(context({ isInit: false, procTrusted: false }))).toMatchObject({ walkProc: false });
    expect(stopDeadlineFor(context({ isInit: false, childGroup: false }))).toMatchObject({ childGroup: false });
  });

  test('says what happened in one line, formatted beforehand', () => {
    const line = stopDeadlineFor(context({ drainCap: 2, grace: 5, stopSignalName: 'INT' }))?.line;
    expect(line).toBe(`sexton: ${stopDeadlineMessage('INT', 10_000)}\n`);
    expect(line).toMatch(/^sexton: stop deadline: 10s after INT .* exiting 124\n$/);
    // In JSON the line carries no time (it would be the time it was made), and stays one line.
    const json = new Logger(1, 'json').preformat(0, stopDeadlineMessage('TERM', 13_000), { exitCode: 124 });
    expect(json.split('\n')).toHaveLength(2);
    expect(JSON.parse(json)).toEqual({ level: 'error', message: stopDeadlineMessage('TERM', 13_000), exitCode: 124 });
  });

  test('the boundary refuses what the addon would misread', () => {
    const good = stopDeadlineFor(context())!;
    expect(checkStopDeadline(good)).toBe(good);
    expect(() => checkStopDeadline({ ...good, signal: 0 })).toThrow(/signal/);
    expect(() => checkStopDeadline({ ...good, milliseconds: 2 ** 31 })).toThrow(/delay/);
    expect(() => checkStopDeadline({ ...good, milliseconds: 1.5 })).toThrow(/delay/);
    expect(() => checkStopDeadline({ ...good, exitCode: 256 })).toThrow(/exit code/);
    expect(() => checkStopDeadline({ ...good, line: 'two\nlines\n' })).toThrow(/one line/);
    expect(() => checkStopDeadline({ ...good, line: 'no newline' })).toThrow(/one line/);
    expect(() => checkStopDeadline({ ...good, mainExitTermLine: 'no newline' })).toThrow(/one line/);
    expect(() => checkStopDeadline({ ...good, mainExitLine: 'two\nlines\n' })).toThrow(/one line/);
    expect(() => checkStopDeadline({ ...good, mainExitAnswerMs: -1 })).toThrow(/answer time/);
    expect(() => checkStopDeadline({ ...good, mainExitCodes: new Uint8Array(255) })).toThrow(/256 bytes/);
  });

  test('as PID 1 only, the main child\'s exit is watched: JS has MAIN_EXIT_ANSWER_MS to answer it', () => {
    const init = stopDeadlineFor(context())!;
    expect(init.mainExitAnswerMs).toBe(MAIN_EXIT_ANSWER_MS);
    expect(init.mainExitTermLine).toBe(`sexton: ${mainExitMessages(13_000).term}\n`);
    expect(init.mainExitLine).toMatch(/^sexton: stop deadline: 13s after that TERM .* exiting with the main child's status \(after --remap-exit\)\n$/);
    // The status it leaves with then is the child's, remapped as at a normal exit, for every status.
    expect([...init.mainExitCodes]).toEqual(Array.from({ length: 256 }, (_, raw) => raw));
    const remapped = stopDeadlineFor(context({ remapExit: new Set([3, 143]) }))!.mainExitCodes;
    expect([remapped[3], remapped[143], remapped[4], remapped[137]]).toEqual([0, 0, 4, 137]);
    // Elsewhere kill(-1) is not sexton's to send: nothing is armed by the main child's exit.
    expect(stopDeadlineFor(context({ isInit: false }))?.mainExitAnswerMs).toBe(0);
  });
});

describe('the stop sequence\'s steps', () => {
  function steps(failing: Set<string>) {
    const lines: string[] = [];
    const done: string[] = [];
    const log = new Logger(1, 'text', (text) => (lines.push(text), text.length));
    const runner = new StopSteps((action) => {
      if (failing.has(action.kind)) throw Object.assign(new Error("EMFILE: too many open files, scandir '/proc'"), { code: 'EMFILE' });
      done.push(action.kind);
    }, log);
    return { runner, lines, done };
  }
  const sequence: Action[] = [
    { kind: 'report-zombie-parents' },
    { kind: 'log', level: 'warn', message: 'received TERM' },
    { kind: 'terminate-daemons' },
    { kind: 'start-timer', timer: 'grace', seconds: 10 },
  ];

  test('one that throws is one line, and the steps after it still run', () => {
    const { runner, lines, done } = steps(new Set(['report-zombie-parents', 'terminate-daemons']));
    for (const action of sequence) runner.run(action);
    expect(done).toEqual(['log', 'start-timer']);
    expect(lines).toEqual([
      "sexton: stop sequence: report-zombie-parents failed (the next steps go on): Error: EMFILE: too many open files, scandir \\'/proc\\'\n",
      "sexton: stop sequence: terminate-daemons failed (the next steps go on): Error: EMFILE: too many open files, scandir \\'/proc\\'\n",
    ]);
    expect(runner.pending).toBe(2);
  });

  test('a retry runs the failed ones again, in order; one failing again waits for the next', () => {
    const failing = new Set(['report-zombie-parents', 'terminate-daemons']);
    const { runner, done } = steps(failing);
    for (const action of sequence) runner.run(action);
    failing.delete('report-zombie-parents');
    const announced: string[] = [];
    runner.retry((kinds) => announced.push(kinds));
    expect(announced).toEqual(['report-zombie-parents, terminate-daemons']);
    expect(done).toEqual(['log', 'start-timer', 'report-zombie-parents']);
    expect(runner.pending).toBe(1);
    failing.clear();
    runner.retry((kinds) => announced.push(kinds));
    expect(done.at(-1)).toBe('terminate-daemons');
    expect(runner.pending).toBe(0);
    runner.retry((kinds) => announced.push(kinds));  // nothing failed: nothing said
    expect(announced).toHaveLength(2);
  });

  test('a log step that fails is not retried, and a logger that throws stops nothing', () => {
    const { runner, done } = steps(new Set(['log']));
    const throwing = new StopSteps((action) => {
      done.push(action.kind);
      throw new Error('boom');
    }, new Logger(1, 'text', () => { throw new Error('stderr gone'); }));
    runner.run(sequence[1]);
    expect(runner.pending).toBe(0);
    expect(() => throwing.run(sequence[2])).not.toThrow();
    expect(throwing.pending).toBe(1);
  });
});
