// A v2-frozen process is not stuck (run in the cgroup v2 guest). cgroup v1's freezer leaves a
// member in state D with SIGKILL pending (test/init/unkillable.test.ts), so "frozen" stood for
// "unkillable" there; v2's cgroup.freeze stops its members in a state a fatal signal still ends.
// sexton must not call it stuck: `sexton scan --stuck` names nothing, and as PID 1 sexton stops
// such a tree like any other: the frozen grandchild gone at the TERM, no "could not kill" line,
// the child's status, well inside the grace period.
import { execa } from 'execa';
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { requireCgroup2 } from '../support/cgroups';
import { requireBuilt, SEXTON, SLOWDOWN, startPid1, until } from '../support/pid1';
import { hostDescendants, procStat } from '../support/processes';

const GRACE = 20;
let dir: string | undefined;

beforeAll(() => {
  requireBuilt();
  requireCgroup2();
});

afterEach(() => {
  if (!dir) return;
  writeFileSync(path.join(dir, 'cgroup.kill'), '1');
  for (let i = 0; i < 100; i++) {
    try {
      rmdirSync(dir);
      break;
    } catch {
      // its last member is still being torn down
    }
  }
  dir = undefined;
});

function readIfThere(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

it('a grandchild frozen by cgroup.freeze ends at the TERM: state S or T, never D, and no "could not kill"', async () => {
  dir = `/sys/fs/cgroup/sexton-frozen-${process.pid}`;
  mkdirSync(dir);
  const app = `sh -c 'echo $$ > ${dir}/cgroup.procs && exec sleep 62.1' & exec sleep 62.2`;
  const run = await startPid1(['--grace', String(GRACE), '-v', '--', 'sh', '-c', app], { timeoutMs: 120_000 });
  const grandchild = await until(() => hostDescendants(run.pid1).find((pid) => readIfThere(`/proc/${pid}/cmdline`) === 'sleep\x0062.1\x00'),
    10_000, 'the grandchild');
  await until(() => readIfThere(`${dir}/cgroup.procs`)?.trim() === String(grandchild), 10_000, 'the grandchild in the cgroup');
  writeFileSync(path.join(dir, 'cgroup.freeze'), '1');
  await until(() => readIfThere(`${dir}/cgroup.events`)?.includes('frozen 1'), 10_000, 'cgroup.events: frozen 1');
  const state = procStat(grandchild)?.state;
  console.log(`a v2-frozen sleep: state ${state}, wchan ${readIfThere(`/proc/${grandchild}/wchan`)}`);
  expect(state).not.toBe('D');
  // `sexton scan --stuck` (what SIGKILL cannot end now: state D, or a kill pending) names nothing.
  const scan = await execa(process.execPath, [SEXTON, 'scan', '--stuck', '--json', '--min-age', '0.3'], { reject: false, timeout: 30_000 * SLOWDOWN });
  expect(scan.exitCode, `${scan.stdout}${scan.stderr}`).toBe(0);
  expect(JSON.parse(String(scan.stdout)).stuck).toEqual([]);

  const stopped = Date.now();
  run.signal('SIGTERM');
  const result = await run.done();
  const took = Date.now() - stopped;
  console.log(`sexton stopped a tree with a v2-frozen grandchild in ${took} ms: ${result.stderr.split('\n').filter((l) => /left|kill|exiting/.test(l)).join(' | ')}`);
  expect(result.exitCode, result.stderr).toBe(143);
  expect(took).toBeLessThan(GRACE * 1000);
  expect(result.stderr).not.toMatch(/could not kill|still there after SIGKILL/);
  expect(procStat(grandchild)).toBeUndefined();
  expect(readIfThere(`${dir}/cgroup.procs`)?.trim()).toBe('');
});
