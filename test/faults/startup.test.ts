// Start-up edges. A TERM in the start-up window, NODE_OPTIONS meant for the app,
// RLIMIT_NOFILE, and closed stdio. The window itself (how long a TERM is lost after PID 1
// appears, against `node -e` and tini) is measured in bench/measure/startup-window.mjs.
import { execa } from 'execa';
import { existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, requireBuilt, startPid1, SEXTON, until } from '../support/pid1';
import { freePort, listening } from '../support/http';
import { procStat, track } from '../support/processes';
import { childrenOf, inPidNamespace } from '../../src/harness/namespace';

const NODE = process.execPath;
let scratch = '';

beforeAll(() => {
  requireBuilt();
  scratch = mkdtempSync(path.join(tmpdir(), 'sexton-faults-b-startup-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Whether pid has a handler for signal (SigCgt of /proc/PID/status), read from the host. */
function catches(pid: number, signal: number): boolean {
  try {
    const m = /^SigCgt:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m !== null && ((BigInt(`0x${m[1]}`) >> BigInt(signal - 1)) & 1n) === 1n;
  } catch {
    return false;
  }
}

const SIGRTMAX = 64;
const ROUNDS = 10;

describe('a TERM during start-up', () => {
  // sexton installs its handlers for every catchable signal in one loop, RTMAX last; Node
  // itself never catches RTMAX. So RTMAX in SigCgt means TERM has sexton's handler.
  it(`sent the moment sexton's handlers are in, before its child exists, is never lost (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const run = await startPid1(['--', 'sleep', '30'], { timeoutMs: 20_000 });
      const deadline = Date.now() + 10_000;
      while (!catches(run.pid1, SIGRTMAX)) {
        if (Date.now() > deadline || procStat(run.pid1) === undefined) throw new Error(`sexton never installed its handlers: ${run.stderr()}`);
      }
      const childBefore = childrenOf(run.pid1).length > 0;
      run.signal('SIGTERM');
      const result = await run.done();
      expect(result.exitCode, `round ${round}${childBefore ? ' (the child already existed)' : ''}: ${result.stderr}`).toBe(143);
      expect(result.durationMs).toBeLessThan(15_000);  // not the test's own timeout
      expect(result.stderr).toMatch(/^sexton: received TERM: stopping/m);
    }
  });

  it(`sent once sexton has started its child is never lost (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const run = await startPid1(['--', 'sleep', '30'], { timeoutMs: 20_000 });
      await until(() => childrenOf(run.pid1)[0], 10_000, 'the child');
      run.signal('SIGTERM');
      const result = await run.done();
      expect(result.exitCode, `round ${round}: ${result.stderr}`).toBe(143);
    }
  });
});

describe('NODE_OPTIONS meant for the app', () => {
  it("a missing --require in NODE_OPTIONS stops Node before sexton's code runs: exit 1, the child never starts", async () => {
    const marker = path.join(scratch, 'child-ran');
    const run = await execa(NODE, [SEXTON, '--', 'sh', '-c', `touch ${marker}`], {
      reject: false, stdin: 'ignore', timeout: 10_000, env: { NODE_OPTIONS: '--require /nonexistent/faults-b-agent.cjs' },
    });
    // Node's own error (a stack trace): no code of sexton's has run yet. Recorded, not endorsed.
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("Cannot find module '/nonexistent/faults-b-agent.cjs'");
    expect(existsSync(marker)).toBe(false);
  });

  it('SEXTON_APP_NODE_OPTIONS reaches the child as NODE_OPTIONS, and its preload runs only in the child', async () => {
    const log = path.join(scratch, 'preload.log');
    const options = `--require ${path.join(FIXTURES, 'node-options-preload.cjs')} --max-old-space-size=200`;
    const run = await startPid1(
      ['--', 'node', '-e', 'console.log(JSON.stringify({ opts: process.env.NODE_OPTIONS, leaked: process.env.SEXTON_APP_NODE_OPTIONS ?? null }))'],
      { env: { SEXTON_APP_NODE_OPTIONS: options, PRELOAD_LOG: log } },
    );
    const result = await run.done();
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ opts: options, leaked: null });
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    expect(lines.filter((line) => line.endsWith(' loaded'))).toHaveLength(1);
    expect(lines.filter((line) => line.startsWith('1 '))).toEqual([]);  // never in PID 1
    expect(result.stderr).toBe('');
  });

  it("a missing preload in SEXTON_APP_NODE_OPTIONS fails the child, not sexton: sexton exits with the child's 1", async () => {
    const run = await startPid1(['--', 'node', '-e', '0'], {
      env: { SEXTON_APP_NODE_OPTIONS: '--require /nonexistent/faults-b-agent.cjs' },
    });
    const result = await run.done();
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("Cannot find module '/nonexistent/faults-b-agent.cjs'");  // the child's Node says it
    expect(result.stderr).not.toMatch(/^sexton: .*(internal error|cannot)/m);
  });
});

interface LimitRun { n: number; exitCode: number | undefined; signal?: string; stderr: string }

describe('RLIMIT_NOFILE', () => {
  it('below the floor, wherever sexton runs, it fails in one line with a documented code; at the floor it works', async () => {
    const runs: LimitRun[] = [];
    for (let n = 14; n <= 40; n++) {
      const result = await execa('prlimit', [`--nofile=${n}`, NODE, SEXTON, '--', 'true'], { reject: false, stdin: 'ignore', timeout: 10_000 });
      runs.push({ n, exitCode: result.exitCode, signal: result.signal, stderr: result.stderr });
    }
    console.log(runs.map((r) => `nofile=${r.n}: ${r.signal ?? `exit ${r.exitCode}`} ${r.stderr.split('\n')[0].slice(0, 120)}`).join('\n'));
    const floor = runs.find((r) => r.exitCode === 0 && r.stderr === '')?.n as number;
    expect(floor).toBeDefined();
    for (const r of runs.filter((run) => run.n > floor)) expect(r).toMatchObject({ exitCode: 0, stderr: '' });
    // Below it: Node's own failures (it cannot load itself or sexton's file), or sexton's line.
    const sextons = runs.filter((r) => r.n < floor && /^sexton: /m.test(r.stderr));
    expect(sextons.length).toBeGreaterThan(0);
    for (const r of sextons) {
      expect(r.stderr.split('\n')).toHaveLength(1);
      expect([1, 126]).toContain(r.exitCode);
    }
  });
});

describe('RLIMIT_NOFILE with every exporter on and a leftover to stop', () => {
  it('each limit either fails at start in one line (exit 1) or runs the whole stop sequence', async () => {
    const dir = mkdtempSync(path.join(scratch, 'nofile-'));
    const outcomes: string[] = [];
    // Upwards from Node's floor until three limits in a row run: inherited descriptors shift the
    // figures by one each, so the range is found, not fixed.
    for (let n = 16, running = 0; n <= 64 && running < 3; n++) {
      const socket = path.join(dir, `status-${n}.sock`);
      const port = await freePort();
      // The child ends when the test has scraped (the go file), and only once the daemon it leaves
      // behind has its trap in (the armed file): events, not sleeps, on a loaded machine.
      const go = path.join(dir, `go-${n}`);
      const armed = path.join(dir, `armed-${n}`);
      const daemon = `trap "echo daemon-got-TERM; exit 0" TERM; touch ${armed}; while :; do sleep 0.05; done`;
      const waitFor = (file: string) => `i=0; while [ ! -e ${file} ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done`;
      const run = await startPid1([
        'prlimit', `--nofile=${n}`, NODE, SEXTON, '--status-socket', socket, '--metrics', `127.0.0.1:${port}`, '--stats-file', path.join(dir, `stats-${n}.json`),
        '--', 'sh', '-c', `echo ready; ${waitFor(go)}; sh -c '${daemon}' & ${waitFor(armed)}; exit 0`,
      ], { raw: true, timeoutMs: 40_000 });
      const ready = await Promise.race([run.waitFor('ready', 'stdout', 10_000).then(() => true), run.done().then(() => false)]);
      if (!ready) {
        const result = await run.done();
        expect(result.exitCode).not.toBe(0);
        if (!result.stderr.includes('sexton:')) {
          outcomes.push(`${n}: Node fails`);  // before any code of sexton's runs
          expect(outcomes.every((o) => o.endsWith('Node fails'))).toBe(true);
          continue;
        }
        outcomes.push(`${n}: exit ${result.exitCode} at start`);
        expect(result.exitCode).toBe(1);
        expect(result.stderr).toMatch(/^sexton: RLIMIT_NOFILE leaves sexton \d+ free file descriptor\(s\) and it needs \d+: raise it \(ulimit -n\)\n$/);
        expect(outcomes.some((o) => o.endsWith('runs'))).toBe(false);
        continue;
      }
      // Each listener is waited for itself: the status socket opens at the spawn, the metrics
      // port after the child runs (a look at one says nothing of the other).
      await until(() => existsSync(socket), 5000, 'the status socket');
      await listening(port, 5000).catch((error: Error) => {
        throw new Error(`nofile=${n}: ${error.message}; sexton said: ${JSON.stringify(run.stderr())}`);
      });
      const status = await execa(NODE, [SEXTON, 'status', '--json', '--socket', socket, '--pid', String(run.pid1)], { reject: false, timeout: 5000 });
      const metrics = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(5000) });
      writeFileSync(go, '');
      const result = await run.done();
      outcomes.push(`${n}: runs`);
      running++;
      expect(status.exitCode, status.stderr).toBe(0);
      expect(metrics.status).toBe(200);
      expect(result.stdout).toContain('daemon-got-TERM');
      expect(result.stderr).not.toMatch(/EMFILE|internal error|no place to listen/);
      expect(result.exitCode).toBe(0);
    }
    console.log(`RLIMIT_NOFILE, all exporters: ${outcomes.join('; ')}`);
    expect(outcomes.some((o) => o.endsWith('at start'))).toBe(true);
    expect(outcomes.filter((o) => o.endsWith('runs'))).toHaveLength(3);
  }, 180_000);
});

describe('closed stdio', () => {
  /** Where fds 0-2 of sexton's child point, read from the host while the child sleeps. */
  async function childStdio(close: string, pid1: boolean): Promise<string[]> {
    const sexton = [NODE, SEXTON, '--status-socket', 'none', '--', 'sleep', '30'];
    const argv = pid1 ? inPidNamespace(sexton) : sexton;
    // stdio are pipes until the shell closes some of them for sexton.
    const proc = execa('/bin/sh', ['-c', `exec "$@" ${close}`, 'sh', ...argv], { reject: false, stdin: 'pipe', timeout: 20_000, killSignal: 'SIGKILL' });
    track(proc.pid);
    const sextonPid = pid1 ? await until(() => childrenOf(proc.pid as number)[0], 10_000, 'PID 1') : (proc.pid as number);
    track(sextonPid);
    const child = await until(() => childrenOf(sextonPid).find((pid) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'sleep'), 10_000, 'the child');
    const fds = [0, 1, 2].map((fd) => {
      try {
        return readlinkSync(`/proc/${child}/fd/${fd}`);
      } catch {
        return 'closed';
      }
    });
    process.kill(sextonPid, 'SIGTERM');
    await proc;
    return fds;
  }

  for (const pid1 of [false, true]) {
    it(`a closed fd reaches the child as /dev/null${pid1 ? ' (PID 1)' : ''}`, async () => {
      const all = await childStdio('0<&- 1>&- 2>&-', pid1);
      expect(all).toEqual(['/dev/null', '/dev/null', '/dev/null']);
      const onlyStdin = await childStdio('0<&-', pid1);
      expect(onlyStdin[0]).toBe('/dev/null');
      expect(onlyStdin.slice(1)).not.toContain('/dev/null');  // what was open stays what it was
      const onlyStderr = await childStdio('2>&-', pid1);
      expect(onlyStderr[2]).toBe('/dev/null');
      expect(onlyStderr.slice(0, 2)).not.toContain('/dev/null');
    });
  }
});
