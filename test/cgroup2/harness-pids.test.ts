// The harness's pids limit as a normal user on cgroup v2 (run in the cgroup v2 guest): uid 65534
// is given a subtree as systemd delegates one (the directory, cgroup.procs, cgroup.subtree_control
// and cgroup.threads its own, the pids controller enabled for its children) and `sexton harness
// pid-exhaustion --init none` makes its pods' pids cgroup inside it: no "unavailable" line, the
// pod's zombies fill the limit and its forks meet it, and nothing of the harness's is left after.
//   Started in the delegated cgroup itself, the harness shares it with its pods' cgroup, which v2
// allows only threaded (the cgroup holds processes and hands pids down). (Started in a leaf below
// a delegated slice, as a session's scope is, the pods' cgroup is an ordinary domain beside it,
// as on the systemd hosts the unit tests lay out.)
import { chownSync, existsSync, mkdirSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { requireCgroup2 } from '../support/cgroups';
import { parseJsonReport } from '../support/harness';
import { asNobody, NOBODY } from '../support/nobody';
import { requireBuilt, SLOWDOWN } from '../support/pid1';

const made: string[] = [];

beforeAll(() => {
  requireBuilt();
  requireCgroup2();
});

/** A cgroup and all below it, children first; rmdir waits out members still being torn down. */
function removeTree(dir: string): void {
  for (const child of readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory())) removeTree(path.join(dir, child.name));
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      rmdirSync(dir);
      return;
    } catch {
      // members still being torn down
    }
  }
}

afterEach(() => {
  // cgroup.kill ends what a failed run may have left in the subtree (the harness's processes are
  // this test's; a threaded child has no cgroup.kill, its thread root's reaches it), then rmdir.
  for (const dir of made.splice(0)) {
    if (!existsSync(dir)) continue;
    writeFileSync(path.join(dir, 'cgroup.kill'), '1');
    removeTree(dir);
  }
});

/** A cgroup owned by nobody as systemd's Delegate= leaves it, pids enabled for its children. */
function delegate(dir: string): string {
  mkdirSync(dir);
  made.push(dir);
  for (const file of ['', 'cgroup.procs', 'cgroup.subtree_control', 'cgroup.threads']) chownSync(path.join(dir, file), NOBODY, NOBODY);
  writeFileSync(path.join(dir, 'cgroup.subtree_control'), '+pids');
  return dir;
}

/** pid-exhaustion as nobody, started (by root, before the drop) in `startIn`. */
async function pidExhaustionIn(startIn: string) {
  const run = await asNobody(['node', 'dist/sexton.js', 'harness', 'pid-exhaustion', '--init', 'none', '--json', '--size', '1'], {
    launcher: ['/bin/sh', '-c', `echo $$ > ${startIn}/cgroup.procs && exec "$@"`, 'sh'], timeoutMs: 60_000 * SLOWDOWN,
  });
  const report = parseJsonReport(run);
  console.log(`pid-exhaustion as uid ${NOBODY} started in ${startIn}: ` +
    `${JSON.stringify({ ...report, samples: undefined, stdout: undefined }).slice(0, 500)}`);
  return { run, report };
}

const harnessCgroups = (dir: string) => readdirSync(dir).filter((name) => name.startsWith('sexton-harness-'));

it(`started in the delegated cgroup itself, uid ${NOBODY}'s pods run under the pids limit it made there`, async () => {
  const slice = delegate(`/sys/fs/cgroup/sexton-user-${NOBODY}-${process.pid}.slice`);
  const { run, report } = await pidExhaustionIn(slice);
  expect(report.pidsLimitUnavailable, run.stderr).toBeUndefined();
  expect(report).toMatchObject({ ran: true });
  // No init reaps (--init none): zombies fill the limit. Neither the slice nor the root has one, so
  // a refused fork means the pods' cgroup (made in the slice, the one cgroup nobody may write) had
  // it. The harness removed that cgroup at its end.
  expect(report.eagain).toBeGreaterThan(0);
  expect(report.peakZombies).toBeGreaterThan(150);
  expect(harnessCgroups(slice)).toEqual([]);
}, 120_000 * SLOWDOWN);
