import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/config/options';
import { checkUsablePaths, directoryProblem, filePathProblem, socketPathProblem, SOCKET_PATH_MAX } from '../../../src/boot/usable-paths';

const dir = mkdtempSync(path.join(tmpdir(), 'sexton-usable-paths-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const refusing = (code: string) => ({
  writable: () => {
    throw Object.assign(new Error(code), { code });
  },
  isDirectory: () => false,
});

describe('socketPathProblem', () => {
  it('takes a path of 107 bytes and refuses 108, counting bytes, not characters', () => {
    expect(socketPathProblem(`/${'a'.repeat(SOCKET_PATH_MAX - 1)}`)).toBeUndefined();
    expect(socketPathProblem(`/${'a'.repeat(SOCKET_PATH_MAX)}`)).toBe('108 bytes long; a unix socket\'s path holds at most 107');
    expect(socketPathProblem(`/${'é'.repeat(60)}`)).toMatch(/^121 bytes long/);
  });

  it('counts an abstract name without its @, and refuses an empty one or a NUL', () => {
    expect(socketPathProblem(`@${'a'.repeat(SOCKET_PATH_MAX)}`)).toBeUndefined();
    expect(socketPathProblem(`@${'a'.repeat(SOCKET_PATH_MAX + 1)}`)).toMatch(/^108 bytes long/);
    expect(socketPathProblem('@')).toBe('it is empty');
    expect(socketPathProblem('/run/a\0b')).toBe('it holds a NUL byte');
  });
});

describe('filePathProblem', () => {
  it('refuses a name that the temporary suffix takes past 255 bytes, and a path with no name', () => {
    expect(filePathProblem(`/tmp/${'s'.repeat(240)}`, '.4194304.tmp')).toBeUndefined();
    expect(filePathProblem(`/tmp/${'s'.repeat(250)}`, '.4194304.tmp')).toMatch(/^its name is 262 bytes long/);
    expect(filePathProblem('/tmp/')).toBe('it names no file');
    expect(filePathProblem(`/${'d/'.repeat(2100)}f`)).toMatch(/^4202 bytes long; a path holds at most 4095$/);
  });
});

describe('directoryProblem', () => {
  it('says what the kernel refused, in words', () => {
    expect(directoryProblem('/gone/s.sock', refusing('ENOENT'))).toBe("its directory '/gone' does not exist");
    expect(directoryProblem('/ro/s.sock', refusing('EROFS'))).toBe("its directory '/ro' is on a read-only file system");
    expect(directoryProblem('/x/s.sock', refusing('EACCES'))).toMatch(/^its directory '\/x' is not writable by uid \d+$/);
    expect(directoryProblem('/x/s.sock', refusing('ELOOP'))).toBe("its directory '/x' cannot be written (ELOOP)");
  });

  it('takes a writable directory, and refuses a path that is itself a directory', () => {
    expect(directoryProblem(path.join(dir, 'stats.json'))).toBeUndefined();
    expect(directoryProblem(dir)).toBe('it is a directory');
    expect(directoryProblem(path.join(dir, 'missing', 'stats.json'))).toMatch(/does not exist$/);
  });
});

describe('checkUsablePaths', () => {
  it('names the option and how to turn the socket off, as a usage error', () => {
    const long = `/run/${'x'.repeat(245)}`;
    const check = () => checkUsablePaths({ statusSocket: [long] });
    expect(check).toThrow(UsageError);
    expect(check).toThrow(/^status-socket '\/run\/x+'…\(170 more\): 250 bytes long; .* \(--status-socket none turns it off\)$/);
    expect(() => checkUsablePaths({ statusSocket: [], statsFile: '/gone/stats.json' }, refusing('ENOENT')))
      .toThrow("stats-file '/gone/stats.json': its directory '/gone' does not exist");
  });

  it('takes the default abstract socket without looking at the file system', () => {
    expect(() => checkUsablePaths({ statusSocket: ['@sexton-status.4026531836'] }, refusing('EROFS'))).not.toThrow();
  });
});
