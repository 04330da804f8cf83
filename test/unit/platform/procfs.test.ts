// A report's /proc scan at a bounded cost (src/platform/procfs.ts scanProcesses): over a /proc
// tree of files in a temp dir, it keeps only what it is asked for and stops at its budget.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanProcesses, zombiesByParent } from '../../../src/platform/procfs';

let proc: string;
const PROCESSES = 1000;

beforeAll(() => {
  proc = mkdtempSync(path.join(tmpdir(), 'sexton-listeners-proc-'));
  writeFileSync(path.join(proc, 'uptime'), '1000.00 900.00\n');
  mkdirSync(path.join(proc, 'self'));  // not a process: skipped
  for (let pid = 2; pid < PROCESSES + 2; pid++) {
    // Every 100th process is a zombie of pid 2, which lives.
    const [state, ppid] = pid % 100 === 0 ? ['Z', 2] : ['S', 1];
    mkdirSync(path.join(proc, String(pid)));
    writeFileSync(path.join(proc, String(pid), 'stat'), `${pid} (p${pid}) ${state} ${ppid} ${pid} ${pid} 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 50000 1000 100\n`);
    writeFileSync(path.join(proc, String(pid), 'cmdline'), `worker\0${pid}\0`);
  }
});
afterAll(() => rmSync(proc, { recursive: true, force: true }));

describe('scanProcesses', () => {
  it('reads every process within a large budget, keeping only those asked for', () => {
    const { kept, complete } = scanProcesses((p) => p.state === 'Z', { entries: 100_000, ms: 10_000 }, proc);
    expect(complete).toBe(true);
    expect(kept.map((p) => p.pid).sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => (i + 1) * 100));
    const groups = zombiesByParent(kept, 1, proc);
    expect(groups).toEqual([expect.objectContaining({ pid: 2, zombies: 10, command: '?' })]);
  });

  it('stops at its count of processes and says the scan was cut', () => {
    let seen = 0;
    const { kept, complete } = scanProcesses(() => (seen++, true), { entries: 500, ms: 10_000 }, proc);
    expect(complete).toBe(false);
    expect(seen).toBe(500);
    expect(kept).toHaveLength(500);
  });

  it('stops at its time budget, reading the clock every 64 processes', () => {
    let seen = 0;
    const { complete } = scanProcesses(() => {
      seen++;
      const until = Date.now() + 2;
      while (Date.now() < until) { /* a slow /proc: 2 s for the whole tree */ }
      return false;
    }, { entries: 100_000, ms: 50 }, proc);
    expect(complete).toBe(false);
    // 64 processes take 128 ms, past the 50 ms budget: the first look at the clock ends it.
    expect(seen).toBe(63);
  });
});
