// The one reader of small kernel text files (src/platform/read-text.ts): the kernel's own text,
// a cgroup path in UTF-8 as Node's file APIs take it, and undefined where a file cannot be read.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readText } from '../../../src/platform/read-text';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'sexton-read-text-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('reads a kernel file as the kernel wrote it', () => {
  const text = readText('/proc/self/status');
  expect(text).toMatch(/^VmRSS:\s+\d+ kB$/m);
  expect(text).toMatch(new RegExp(`^Pid:\\s+${process.pid}$`, 'm'));
});

it('gives a UTF-8 path back as the string that opens it', () => {
  const file = path.join(dir, 'cgroup');
  writeFileSync(file, '0::/kubepods/pod-é/app\n');
  expect(readText(file)).toBe('0::/kubepods/pod-é/app\n');
});

it('says undefined for a file that is not there, or not a file', () => {
  expect(readText(path.join(dir, 'missing'))).toBeUndefined();
  expect(readText(dir)).toBeUndefined();
});

it('turns bytes that are not UTF-8 into U+FFFD, one each, and keeps the rest', () => {
  const file = path.join(dir, 'comm');
  writeFileSync(file, Buffer.from([0x61, 0xff, 0x62, 0x0a]));
  expect(readText(file)).toBe('a\ufffdb\n');
});
