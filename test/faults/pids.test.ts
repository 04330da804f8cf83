// Nothing needs a new thread once the child runs. Each run is started in its own
// pids cgroup (the real limit, as a pod's pid limit); the pod's other processes hold most of it
// and the child fills the rest with a process tree and keeps it full; sexton must go on answering `sexton status`, the metrics scrape, the stats
// file and TERM, and must never die. Then the start-up floor: room for k tasks, k = 1..10.
import { execa } from 'execa';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PidsCgroup } from '../support/cgroups';
import { freshDir, removeDirs, statusJson } from '../support/observability';
import { freePort, listening } from '../support/http';
import { fixture, requireBuilt, startPid1, SEXTON, until } from '../support/pid1';
import { track } from '../support/processes';
import { removeCgroups } from '../support/test-cgroup';

const NODE = process.execPath;
const FILL = fixture('pids-fill.cjs');
const LIMIT = 64;
const cgroups: PidsCgroup[] = [];

function cgroup(name: string, limit: number): PidsCgroup {
  const cg = new PidsCgroup(name, limit);
  cgroups.push(cg);
  return cg;
}

beforeAll(requireBuilt);
afterEach(async () => {
  await removeCgroups(cgroups.splice(0));
  removeDirs();
});

const tasksOf = (pid: number) => readdirSync(`/proc/${pid}/task`).length;

/** sexton's threads (9) and the filler's Node (7), and 2 more: less than a thread pool's 4. */
const ROOM = 9 + 7 + 2;

/**
 * Takes all of the cgroup but ROOM before sexton starts (other processes of the pod), so that
 * the filler reaches the limit within moments of starting, well before sexton's exporters
 * (100 ms after the child): a name lookup then, or any new thread pool, finds no room.
 */
async function holdAllBut(cg: PidsCgroup, room: number): Promise<number[]> {
  const held = cg.limit - room;
  const holder = execa('/bin/sh', ['-c', `echo $$ > ${cg.dir}/cgroup.procs; i=1; while [ $i -lt ${held} ]; do sleep 300 & i=$((i+1)); done; echo held; wait`], {
    reject: false, stdin: 'ignore', timeout: 60_000, killSignal: 'SIGKILL',
  });
  let out = '';
  holder.stdout?.on('data', (d) => (out += d));
  await until(() => out.includes('held'), 10_000, 'the holder to take its share');
  expect(cg.current()).toBe(held);
  return cg.procs();
}

/** What a dying Node or a failed thread leaves on stderr; none of it may come from sexton. */
const NATIVE_CRASH = /Native stack trace|std::system_error|terminate called|Aborted|Segmentation fault|Assertion failed/;

function expectOnlySextonLines(stderr: string): void {
  expect(stderr).not.toMatch(NATIVE_CRASH);
  for (const line of stderr.split('\n').filter(Boolean)) expect(line).toMatch(/^sexton: /);
}

async function scrape(port: number): Promise<{ status: number; text: string }> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(5000) });
  return { status: response.status, text: await response.text() };
}

describe('with pids.max reached by the child', () => {
  for (const host of ['127.0.0.1', 'localhost']) {
    it(`as PID 1 with every exporter on (--metrics ${host}:PORT): status, scrape, stats file and TERM all work`, async () => {
      const cg = cgroup('pid1', LIMIT);
      await holdAllBut(cg, ROOM);
      const dir = freshDir();
      const socket = path.join(dir, 'status.sock');
      const statsFile = path.join(dir, 'stats.json');
      const port = await freePort();
      const sexton = [NODE, SEXTON, '--status-socket', socket, '--metrics', `${host}:${port}`, '--stats-file', statsFile];
      // PID 1 is sh for a moment: it joins the cgroup and execs sexton, which stays PID 1.
      const run = await startPid1(cg.wrap([...sexton, '--', NODE, FILL]), { raw: true, timeoutMs: 60_000 });
      await run.waitFor(/^filled \d+$/m, 'stdout', 30_000).catch((error) => { throw new Error(`${error.message}; stderr: ${run.stderr()}; cgroup ${cg.current()}`); });
      // The status socket opens at the spawn, the metrics port after the child runs: each is
      // waited for itself (on a loaded machine the second can come long after the first).
      await until(() => existsSync(socket), 10_000, 'the status socket');
      await listening(port, 10_000);
      const tasks = tasksOf(run.pid1);
      const refusedBefore = cg.refusals();
      expect(refusedBefore).toBeGreaterThan(0);
      // A shell of the tree that could not fork its second sleeper gives its slot back; the
      // filler takes it again within 50 ms.
      await until(() => cg.current() === LIMIT, 5000, `the cgroup to be full (${cg.current()} of ${LIMIT})`);

      const snapshot = await statusJson(socket, run.pid1);
      expect(snapshot).toMatchObject({ pid: 1, role: 'init', phase: 'running', procfs: 'own', tasks });
      const metrics = await scrape(port);
      expect(metrics.status).toBe(200);
      expect(metrics.text).toMatch(/^sexton_build_info\{.*\} 1$/m);
      // A forwarded HUP moves a counter: the stats file is rewritten within its second.
      run.signal('SIGHUP');
      await until(() => {
        try {
          return JSON.parse(readFileSync(statsFile, 'utf8')).signals.forwarded.HUP === 1;
        } catch {
          return false;  // not written yet
        }
      }, 10_000, 'the stats file to count the forwarded HUP');

      // All of that with the limit still refusing forks, and without one more sexton thread.
      await until(() => cg.refusals() > refusedBefore, 5000, 'the filler to hit the limit again');
      expect(tasksOf(run.pid1)).toBe(tasks);
      expect(cg.current()).toBe(LIMIT);

      run.signal('SIGTERM');
      const result = await run.done();
      expect(result.exitCode).toBe(143);  // the filler died of the forwarded TERM
      expectOnlySextonLines(result.stderr);
      expect(result.stderr).toMatch(/^sexton: received TERM: stopping/m);
      expect(result.stderr).toMatch(/^sexton: exiting with 143: /m);
      const final = JSON.parse(readFileSync(statsFile, 'utf8'));
      expect(final.mainChild).toMatchObject({ state: 'exited', signal: 'TERM' });
      expect(cg.current()).toBe(LIMIT - ROOM);  // the holder's share, nothing of the namespace
    });
  }

  it('not PID 1 (a subreaper, no namespace): survives, and TERM leaves no process of the tree running', async () => {
    const cg = cgroup('subreaper', LIMIT);
    const held = await holdAllBut(cg, ROOM);
    const statsFile = path.join(freshDir(), 'stats.json');
    const argv = cg.wrap([NODE, SEXTON, '--stats-file', statsFile, '-t', '3', '--', NODE, FILL]);
    const proc = execa(argv[0], argv.slice(1), { reject: false, all: true, stdin: 'ignore', timeout: 60_000, killSignal: 'SIGKILL' });
    track(proc.pid);
    let stdout = '';
    proc.stdout?.on('data', (d) => (stdout += d));
    await until(() => /^filled \d+$/m.test(stdout), 30_000, 'the filler to fill the limit');
    const sexton = proc.pid as number;
    await until(() => existsSync(statsFile), 10_000, 'the stats file');
    const tasks = tasksOf(sexton);
    const refusedBefore = cg.refusals();
    await until(() => cg.refusals() > refusedBefore, 5000, 'the filler to hit the limit again');
    expect(tasksOf(sexton)).toBe(tasks);

    process.kill(sexton, 'SIGTERM');
    const result = await proc;
    expect(result.signal).toBeUndefined();  // sexton exited, it was not killed
    expect(result.exitCode).toBe(143);
    expectOnlySextonLines(result.stderr);
    // Only the holder's processes may be left: none of sexton's tree.
    expect(cg.procs().sort()).toEqual(held.sort());
    expect(JSON.parse(readFileSync(statsFile, 'utf8'))).toMatchObject({ role: 'subreaper', mainChild: { state: 'exited' } });
  });
});

interface FloorRun { k: number; exitCode: number | undefined; hung: boolean; stderr: string }

/** argv started in a cgroup with room for k tasks; a hang ends at 3 s (SIGKILL). */
async function underRoomFor(k: number, argv: string[]): Promise<FloorRun> {
  const cg = cgroup(`floor${k}`, k);
  const wrapped = cg.wrap(argv);
  const result = await execa(wrapped[0], wrapped.slice(1), { reject: false, stdin: 'ignore', timeout: 3000, killSignal: 'SIGKILL' });
  await cg.remove();
  cgroups.splice(cgroups.indexOf(cg), 1);
  return { k, exitCode: result.exitCode, hung: result.timedOut, stderr: result.stderr };
}

function describeRun(r: FloorRun): string {
  const first = r.stderr.split('\n')[0] ?? '';
  return `k=${r.k}: ${r.hung ? 'hangs' : `exit ${r.exitCode}`}${first ? `, ${first.slice(0, 110)}` : ''}`;
}

describe('start-up floor: room for k tasks', () => {
  it("Node's floor, and sexton's own failures above it are one line and exit 1", async () => {
    const node: FloorRun[] = [];
    const sexton: FloorRun[] = [];
    for (let k = 1; k <= 10; k++) {
      node.push(await underRoomFor(k, [NODE, '-e', '0']));
      sexton.push(await underRoomFor(k, [NODE, SEXTON, '--', 'true']));
    }
    console.log(['node -e 0:', ...node.map(describeRun), 'sexton -- true:', ...sexton.map(describeRun)].join('\n  '));

    // Node's floor: the least room in which it starts and ends without a word.
    const floor = node.find((r) => r.exitCode === 0 && r.stderr === '')?.k as number;
    expect(floor).toBeGreaterThan(1);
    // Above it sexton needs its notifier and reaper threads, then one task for the child.
    const at = (k: number) => sexton[k - 1];
    expect(at(floor)).toMatchObject({ exitCode: 1, hung: false });
    expect(at(floor).stderr).toBe('sexton: cannot start its notifier thread (EAGAIN: the pids limit or RLIMIT_NPROC leaves no room)');
    expect(at(floor + 1)).toMatchObject({ exitCode: 1, hung: false });
    expect(at(floor + 1).stderr).toBe('sexton: cannot start its reaper thread (EAGAIN: the pids limit or RLIMIT_NPROC leaves no room)');
    expect(at(floor + 2)).toMatchObject({ exitCode: 126, stderr: "sexton: cannot start 'true': fork failed (EAGAIN)" });
    for (let k = floor + 3; k <= 10; k++) expect(at(k)).toMatchObject({ exitCode: 0, stderr: '' });
    // Below Node's floor, wherever sexton's code ran and failed it said so in one line, exit 1.
    for (const r of sexton.filter((s) => s.k < floor && /^sexton: /m.test(s.stderr))) {
      expect(r.exitCode).toBe(1);
      expect(r.stderr.split('\n').filter((l) => l.startsWith('sexton: '))).toHaveLength(1);
      expect(r.stderr).not.toMatch(/std::system_error|terminate called/);
    }
  }, 180_000);  // twenty starts, eight of them hangs cut at 3 s
});
