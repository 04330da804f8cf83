// Small containers on cgroup v2 (run in the guest of scripts/cgroup2-guest.mjs): a 32 and a 36 MiB
// memory.max, six workers allocating 6 MiB each at once from the start, PID 1 without
// CAP_SYS_RESOURCE. The OOM killer must take a worker, never PID 1; sexton counts the kills from
// memory.events; and once the app is told to stop, PID 1 must leave about as promptly as tini,
// though v2 reclaims file pages (PID 1's own code among them) before it kills anything.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  compileFixtures, CompiledFixtures, hasSysResource, liveHogs, MemoryCgroup, memoryIsV2, readStats, scratchDir, settle,
} from '../support/faults';
import { requireBuilt, requireTini, startPid1, SEXTON, sextonArgv } from '../support/pid1';
import { procStat } from '../support/processes';
import { removeCgroups } from '../support/test-cgroup';

const WORKERS = 6;
const WORKER_MIB = 6;
const LIMITS_MIB = [32, 36];
/** TCG runs node ~11x slower than this machine: the guest's budgets are sized for it. */
const SETTLE_MS = 90_000;

let fixtures: CompiledFixtures;
const cgroups: MemoryCgroup[] = [];
const scratch: { remove(): void }[] = [];
const stopTimes: Record<string, number> = {};

beforeAll(() => {
  requireBuilt();
  requireTini();
  if (!memoryIsV2()) throw new Error('these tests need cgroup v2 with the memory controller: npm run test:cgroup2 runs them in a v2 guest');
  fixtures = compileFixtures(['hog']);
});

afterEach(async () => {
  await removeCgroups(cgroups.splice(0));
  for (const s of scratch.splice(0)) s.remove();
});

afterAll(() => {
  fixtures?.remove();
  console.log(`TERM to exit at the limit (guest, cgroup v2): ${JSON.stringify(stopTimes)}`);
});

function app(): string[] {
  return ['sh', '-c', 'i=0; while [ $i -lt $1 ]; do "$0" $2 & i=$((i+1)); done; wait', fixtures.path('hog'), String(WORKERS), String(WORKER_MIB)];
}

/** The same workers, but the main child leaves (status 3) when a line comes on `fifo`, the workers staying. */
function appThatLeaves(fifo: string): string[] {
  return ['sh', '-c', 'i=0; while [ $i -lt $1 ]; do "$0" $2 & i=$((i+1)); done; read line < "$3"; exit 3', fixtures.path('hog'), String(WORKERS),
    String(WORKER_MIB), fifo];
}

/**
 * A copy of node whose file pages nobody has read yet: the cgroup that runs it first is charged
 * for them, as a container is for its image's node. (The guest's own node is read by the test
 * runner first, so its pages are charged to the root cgroup and never reclaimed in the test's.)
 */
function ownNode(): string {
  const dir = process.env.SEXTON_GUEST_FILES;
  if (!dir) throw new Error('SEXTON_GUEST_FILES is not set: run these tests with npm run test:cgroup2');
  const copy = path.join(dir, `node-${process.pid}-${++copies}`);
  copyFileSync(process.execPath, copy);
  chmodSync(copy, 0o755);
  // Written here, its pages are in the page cache, charged to this cgroup: drop them.
  writeFileSync('/proc/sys/vm/drop_caches', '1');
  return copy;
}
let copies = 0;

/** memory.events and memory.stat's fault counters, for the record. */
function pressure(cgroup: MemoryCgroup): string {
  const events = cgroup.read('memory.events').replace(/\n/g, ' ').trim();
  const stat = cgroup.read('memory.stat');
  const field = (name: string) => new RegExp(`^${name} (\\d+)$`, 'm').exec(stat)?.[1];
  return `${events}; pgmajfault ${field('pgmajfault')}; peak ${(Number(cgroup.read('memory.peak')) / 2 ** 20).toFixed(1)} MiB`;
}

describe('cgroup v2 small containers: a worker dies, never PID 1, and PID 1 stops promptly at the limit', () => {
  for (const limit of LIMITS_MIB) {
    for (const init of ['tini', 'sexton']) {
      it(`${limit} MiB, ${WORKERS} workers of ${WORKER_MIB} MiB at once, ${init}`, async () => {
        const cgroup = new MemoryCgroup(`v2-${limit}`, limit);
        cgroups.push(cgroup);
        const dir = scratchDir();
        scratch.push(dir);
        const stats = path.join(dir.dir, 'stats.json');
        const argv = init === 'tini' ? ['/usr/bin/tini', '--', ...app()] : sextonArgv(['--stats-file', stats, '-v', '--', ...app()]);
        const run = await startPid1(argv, { raw: true, launcher: cgroup.launcher(), timeoutMs: 200_000 });
        const pid1Start = procStat(run.pid1)?.startTime;
        expect(hasSysResource(run.pid1)).toBe(false);

        const survivors = await settle(run, cgroup, WORKER_MIB, WORKERS, SETTLE_MS);
        const kills = cgroup.oomKills();
        expect(procStat(run.pid1)?.startTime, `PID 1 gone after ${kills} OOM kill(s); stderr: ${run.stderr().slice(-400)}`).toBe(pid1Start);
        expect(kills).toBeGreaterThanOrEqual(1);
        expect(survivors.length).toBe(WORKERS - kills);
        if (init === 'sexton') {
          // The child's oom_score_adj line names what the OOM killer weighs and what the cgroup is charged.
          expect(run.stderr()).toMatch(/child oom_score_adj \d+ \(sexton's 0; resident \d+ MiB, the cgroup charged \d+ MiB, of a \d+ MiB limit\)/);
        }

        const term = Date.now();
        run.signal('SIGTERM');
        const result = await run.done();
        stopTimes[`${init} ${limit} MiB`] = Date.now() - term;
        expect(result.exitCode, result.stderr.slice(-600)).toBe(143);
        expect(cgroup.tasks()).toEqual([]);
        if (init === 'sexton') {
          // sexton's count is memory.events' own, in the stats file it leaves.
          expect(readStats(stats)?.oomKills).toBe(cgroup.oomKills());
          expect(result.stderr).toMatch(/the OOM killer ended a process in sexton's memory cgroup \(limit \d+ MiB\); \d+ OOM kill\(s\) so far/);
        }
        expect(liveHogs(run.pid1)).toEqual([]);
      }, 300_000);
    }
  }
});

describe('cgroup v2 small containers: the main child leaves while its workers hold the cgroup at its limit', () => {
  for (const limit of [32]) {
    for (const init of ['tini', 'sexton']) {
      it(`${limit} MiB, ${init}: PID 1 leaves with the main child's status, the workers with it`, async () => {
        const cgroup = new MemoryCgroup(`v2-leaves-${limit}`, limit);
        cgroups.push(cgroup);
        const dir = scratchDir();
        scratch.push(dir);
        const fifo = path.join(dir.dir, 'leave');
        execFileSync('mkfifo', [fifo]);
        const argv = init === 'tini' ? ['/usr/bin/tini', '--', ...appThatLeaves(fifo)] : [ownNode(), SEXTON, '-v', '--', ...appThatLeaves(fifo)];
        const run = await startPid1(argv, { raw: true, launcher: cgroup.launcher(), timeoutMs: 250_000 });
        const pid1Start = procStat(run.pid1)?.startTime;
        await settle(run, cgroup, WORKER_MIB, WORKERS, SETTLE_MS);
        expect(procStat(run.pid1)?.startTime).toBe(pid1Start);
        const left = Date.now();
        writeFileSync(fifo, 'go\n');
        const result = await run.done();
        stopTimes[`${init} ${limit} MiB, main child leaves`] = Date.now() - left;
        console.log(`${init}, ${limit} MiB, main child leaves: PID 1 gone after ${Date.now() - left} ms; ${pressure(cgroup)}`);
        const said = result.stderr.split('\n').filter((l) => /main child|by the addon|stop deadline/.test(l));
        console.log(said.join('\n'));
        expect(result.exitCode, result.stderr.slice(-600)).toBe(3);
        expect(cgroup.tasks()).toEqual([]);
        // tini leaves at once; sexton within its answer time and the TERM's effect (4-6 s measured
        // here), never the stop deadline's 13 s, which would mean the workers outlived the TERM.
        expect(Date.now() - left).toBeLessThan(12_000);
      }, 300_000);
    }
  }
});
