// The exit status policy, without a process: the shell's convention, --remap-exit, --strict.
import { describe, expect, test } from 'vitest';
import { EXIT } from '../../../src/config/exit-codes';
import { exitStatus, leaks } from '../../../src/init/executor';

const plain = { remapExit: new Set<number>(), strict: false };

describe('exitStatus', () => {
  test("a normal exit is the child's code; a signal is 128+N", () => {
    expect(exitStatus({ exitCode: 7, signal: 0 }, plain, []).code).toBe(7);
    expect(exitStatus({ exitCode: -1, signal: 15 }, plain, []).code).toBe(143);
  });

  test('no exit heard (a child that outlived SIGKILL) reports 137', () => {
    expect(exitStatus(undefined, plain, []).code).toBe(137);
  });

  test('remapped codes become 0, signal codes included', () => {
    const policy = { remapExit: new Set([143]), strict: false };
    expect(exitStatus({ exitCode: -1, signal: 15 }, policy, []).code).toBe(0);
    expect(exitStatus({ exitCode: 1, signal: 0 }, policy, []).code).toBe(1);
  });

  test('--strict fails a successful child that leaked, and only then', () => {
    const strict = { remapExit: new Set<number>(), strict: true };
    const leaked = leaks(2, []);
    expect(exitStatus({ exitCode: 0, signal: 0 }, strict, leaked)).toEqual({ code: EXIT.strict, strictFailure: true });
    expect(exitStatus({ exitCode: 0, signal: 0 }, strict, [])).toEqual({ code: 0, strictFailure: false });
    // A child that failed keeps its own code, and a natural 70 is not a strict failure.
    expect(exitStatus({ exitCode: 3, signal: 0 }, strict, leaked)).toEqual({ code: 3, strictFailure: false });
    expect(exitStatus({ exitCode: 70, signal: 0 }, strict, leaked)).toEqual({ code: 70, strictFailure: false });
  });

  test('leaks names orphans and each parent holding zombies', () => {
    expect(leaks(0, [])).toEqual([]);
    expect(leaks(1, [{ pid: 9, command: 'app', zombies: 3, oldestAgeSeconds: 1 }])).toEqual([
      "reaped 1 orphan(s) the child's processes left behind",
      'pid 9 (app) held 3 zombie(s)',
    ]);
  });
});
