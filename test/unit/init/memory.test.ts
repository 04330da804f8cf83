// The OOM policy's arithmetic and how sexton finds its memory cgroup, on temporary trees that
// stand in for /proc and /sys/fs/cgroup: no root, no namespaces.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { childOomScoreAdj, compactionDue, GROWTH_BEFORE_RELEASE_BYTES, releaseBeforeSpawn } from '../../../src/init/memory';
import { findMemoryCgroup, oomKillCount } from '../../../src/platform/memory-cgroup';

const MiB = 2 ** 20;

describe('releaseBeforeSpawn', () => {
  const adjAt = (limitMiB: number, own = 0) => childOomScoreAdj('auto', own, 42 * MiB + GROWTH_BEFORE_RELEASE_BYTES, limitMiB * MiB);

  it('waits for the exporters where the step alone makes every app process outrank sexton', () => {
    for (const limitMiB of [64, 96, 256, 23 * 1024]) expect(releaseBeforeSpawn('auto', adjAt(limitMiB), 42 * MiB)).toBe(false);
    // Kubernetes' Guaranteed pods run sexton at -997: any limit leaves room above it.
    expect(releaseBeforeSpawn('auto', adjAt(32, -997), 42 * MiB)).toBe(false);
  });

  it('releases first where the step is capped, the policy is not auto, or the resident size is unknown', () => {
    for (const limitMiB of [16, 24, 32, 48]) expect(releaseBeforeSpawn('auto', adjAt(limitMiB), 42 * MiB)).toBe(true);
    expect(releaseBeforeSpawn('auto', adjAt(256, 900), 42 * MiB)).toBe(true);  // Burstable near the top
    expect(releaseBeforeSpawn('off', undefined, 42 * MiB)).toBe(true);
    expect(releaseBeforeSpawn(500, 500, 42 * MiB)).toBe(true);
    expect(releaseBeforeSpawn('auto', childOomScoreAdj('auto', 0, GROWTH_BEFORE_RELEASE_BYTES, 64 * MiB), 0)).toBe(true);
  });
});

describe('childOomScoreAdj', () => {
  it('off inherits (undefined) and a number is used as given', () => {
    expect(childOomScoreAdj('off', 0, 40 * MiB, 64 * MiB)).toBeUndefined();
    expect(childOomScoreAdj(500, 0, 40 * MiB, 64 * MiB)).toBe(500);
    expect(childOomScoreAdj(-1000, 300, 40 * MiB, 64 * MiB)).toBe(-1000);
  });

  it('auto: own value plus sexton’s share of the limit in thousandths, rounded up, plus one', () => {
    // 41 MiB of 64: 640.6‰ → 641 + 1.
    expect(childOomScoreAdj('auto', 0, 41 * MiB, 64 * MiB)).toBe(642);
    // Exactly a quarter: 250 + 1 (no rounding up of an exact share).
    expect(childOomScoreAdj('auto', 0, 64 * MiB, 256 * MiB)).toBe(251);
    // On top of what sexton was started with (Kubernetes' Burstable values, for one).
    expect(childOomScoreAdj('auto', 300, 64 * MiB, 256 * MiB)).toBe(551);
    expect(childOomScoreAdj('auto', -997, 13 * MiB, 1024 * MiB)).toBe(-997 + 13 + 1);
  });

  it('auto never goes above the kernel’s maximum', () => {
    expect(childOomScoreAdj('auto', 900, 41 * MiB, 64 * MiB)).toBe(1000);
    expect(childOomScoreAdj('auto', 0, 200 * MiB, 64 * MiB)).toBe(1000);
  });

  it('auto makes any app process outrank sexton in the kernel’s badness', () => {
    // badness = resident pages + adj × limit pages / 1000: an app process of one page with the
    // child's value must score above sexton with its own.
    for (const [residentMiB, limitMiB] of [[41, 64], [13, 64], [41, 96], [13, 256], [41, 23 * 1024]]) {
      const page = 4096;
      const limitPages = (limitMiB * MiB) / page;
      const adj = childOomScoreAdj('auto', 0, residentMiB * MiB, limitMiB * MiB) as number;
      const sexton = (residentMiB * MiB) / page;
      const tinyApp = 1 + Math.floor((adj * limitPages) / 1000);
      expect(tinyApp, `${residentMiB} MiB of ${limitMiB} MiB: adj ${adj}`).toBeGreaterThan(sexton);
    }
  });
});

describe('findMemoryCgroup', () => {
  let root: string;
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** What sexton finds there; a root cgroup ("/") may come with a trailing slash, which is harmless. */
  function found(t: { proc: string; sys: string }) {
    const cgroup = findMemoryCgroup(t.sys, t.proc);
    return cgroup && { ...cgroup, dir: cgroup.dir.replace(/(.)\/+$/, '$1') };
  }

  /** A fake /proc (self/cgroup) and /sys/fs/cgroup with the given files. */
  function tree(procCgroup: string, files: Record<string, string>): { proc: string; sys: string } {
    root = mkdtempSync(path.join(tmpdir(), 'sexton-unit-memory-'));
    const proc = path.join(root, 'proc');
    const sys = path.join(root, 'sys');
    mkdirSync(path.join(proc, 'self'), { recursive: true });
    writeFileSync(path.join(proc, 'self', 'cgroup'), procCgroup);
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(sys, file)), { recursive: true });
      writeFileSync(path.join(sys, file), text);
    }
    return { proc, sys };
  }

  it('v1: the memory line’s path under the memory mount, with its limit', () => {
    const t = tree('12:pids:/x\n4:cpuacct,memory:/kubepods/pod1/c1\n0::/\n', {
      'memory/kubepods/pod1/c1/memory.limit_in_bytes': `${64 * MiB}\n`,
      'memory/memory.limit_in_bytes': '9223372036854771712\n',
    });
    expect(found(t)).toEqual({ dir: path.join(t.sys, 'memory/kubepods/pod1/c1'), v2: false, limitBytes: 64 * MiB });
  });

  it('v1 inside a container without a cgroup namespace: the mount’s root is sexton’s cgroup', () => {
    const t = tree('4:memory:/docker/abc\n', { 'memory/memory.limit_in_bytes': `${96 * MiB}\n` });
    expect(found(t)).toEqual({ dir: path.join(t.sys, 'memory'), v2: false, limitBytes: 96 * MiB });
  });

  it('v1 unlimited (the huge page-aligned number) has no limit', () => {
    const t = tree('4:memory:/\n', { 'memory/memory.limit_in_bytes': '9223372036854771712\n' });
    expect(found(t)).toEqual({ dir: path.join(t.sys, 'memory'), v2: false, limitBytes: undefined });
  });

  it('v2: the unified path, memory.max as bytes or "max"', () => {
    let t = tree('0::/system.slice/app.scope\n', { 'system.slice/app.scope/memory.max': `${256 * MiB}\n` });
    expect(found(t)).toEqual({ dir: path.join(t.sys, 'system.slice/app.scope'), v2: true, limitBytes: 256 * MiB });
    rmSync(root, { recursive: true, force: true });
    t = tree('0::/\n', { 'memory.max': 'max\n' });
    expect(found(t)).toEqual({ dir: t.sys, v2: true, limitBytes: undefined });
  });

  it('v2 in a container with a cgroup namespace but a path the mount does not have: the mount’s root', () => {
    const t = tree('0::/../../pod/c\n', { 'memory.max': `${64 * MiB}\n` });
    expect(found(t)).toEqual({ dir: t.sys, v2: true, limitBytes: 64 * MiB });
  });

  it('no memory controller anywhere: undefined', () => {
    const t = tree('12:pids:/\n3:cpu:/\n', { 'pids/pids.max': 'max\n' });
    expect(found(t)).toBeUndefined();
  });

  it('oomKillCount reads oom_kill from memory.oom_control (v1) or memory.events (v2)', () => {
    const t = tree('0::/\n', {
      'v1/memory.oom_control': 'oom_kill_disable 0\nunder_oom 0\noom_kill 3\n',
      'v2/memory.events': 'low 0\nhigh 0\nmax 12\noom 4\noom_kill 2\noom_group_kill 0\n',
      'none/memory.oom_control': 'oom_kill_disable 0\nunder_oom 0\n',
    });
    expect(oomKillCount({ dir: path.join(t.sys, 'v1'), v2: false })).toBe(3);
    expect(oomKillCount({ dir: path.join(t.sys, 'v2'), v2: true })).toBe(2);
    expect(oomKillCount({ dir: path.join(t.sys, 'none'), v2: false })).toBeUndefined();
    expect(oomKillCount({ dir: path.join(t.sys, 'missing'), v2: true })).toBeUndefined();
  });
});

describe('compactionDue', () => {
  it('compacts once a minute whatever the load, and after a burst of 50 answers at most every 10 s', () => {
    expect(compactionDue(0, Infinity)).toBe(true);
    expect(compactionDue(1, 60_000)).toBe(true);
    expect(compactionDue(49, 59_999)).toBe(false);
    expect(compactionDue(50, 10_000)).toBe(true);
    expect(compactionDue(5000, 9_999)).toBe(false);
  });
});
