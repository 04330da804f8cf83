// Observability: `sexton status` over its Unix socket, the probe's exit codes,
// Prometheus metrics checked by promtool, the stats file and JSON logs, each against a real
// sexton PID 1 running a leaking workload. Every run gets its own socket path in a fresh
// directory: tests run in parallel on the host's filesystem.
import { existsSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requireBuilt, ROOT, startPid1, SEXTON, until, zombiesUnder } from '../support/pid1';
import { checkMetrics, freshDir, leakingApp, namespacePid, ownSocketInodes, promtool, removeDirs, sample, status, statusJson, unixSocketInode } from '../support/observability';
import { freePort } from '../support/http';
import { childrenOf } from '../../src/harness/namespace';
import { hostDescendants } from '../support/processes';

const VERSION = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
const workload = (...args: string[]) => [process.execPath, path.join(ROOT, 'dist', 'workload.js'), ...args];
const ZOMBIE_POD = workload('zombie-pod', '3');

beforeAll(requireBuilt);
afterEach(() => {
  removeDirs();
});

describe('sexton status', () => {
  it('describes a leaking zombie pod as a table and as JSON', async () => {
    const socket = path.join(freshDir(), 'status.sock');
    // The daemon takes its socket path from the environment variable, the client from --socket.
    const run = await startPid1(['--', ...ZOMBIE_POD], { env: { SEXTON_STATUS_SOCKET: socket } });
    await run.waitFor('zombie-pod-started');
    const s = await until(async () => {
      const snap = existsSync(socket) ? await statusJson(socket, run.pid1) : undefined;
      return snap?.zombieCount === 3 ? snap : undefined;
    }, 10_000, 'three zombies in the status');

    expect(s).toMatchObject({
      version: VERSION, pid: 1, role: 'init', phase: 'running', reaped: 0, orphansReaped: 0, orphansByCommand: {}, orphansUnnamed: 0,
      signals: { received: {}, forwarded: {}, dropped: {} }, zombieCount: 3,
    });
    expect(s.uptimeSeconds).toBeGreaterThan(0);
    expect(s.uptimeSeconds).toBeLessThan(30);
    // The main child's pid is the one it has inside the namespace.
    const [mainHostPid] = childrenOf(run.pid1);
    expect(s.mainChild).toEqual({ pid: namespacePid(mainHostPid), command: ZOMBIE_POD.join(' '), state: 'running' });
    // Grouped by live parent: the zombie-N processes of the workload, one zombie each.
    const parents = new Map(hostDescendants(run.pid1).map((hostPid) => [namespacePid(hostPid), hostPid]));
    expect(s.zombies).toHaveLength(3);
    const names = new Set<string>();
    for (const group of s.zombies) {
      names.add(/\/(zombie-\d) 100000$/.exec(group.command)?.[1] ?? group.command);
      expect(group.zombies).toBe(1);
      expect(group.oldestAgeSeconds).toBeGreaterThanOrEqual(0);
      expect(group.oldestAgeSeconds).toBeLessThan(30);
      const hostPid = parents.get(group.pid) as number;
      expect(readFileSync(`/proc/${hostPid}/comm`, 'utf8').trim()).toMatch(/^zombie-[123]$/);
    }
    expect([...names].sort()).toEqual(['zombie-1', 'zombie-2', 'zombie-3']);

    const table = await status(['--pid', String(run.pid1)], { SEXTON_STATUS_SOCKET: socket });
    expect(table.exitCode).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`^sexton\\s+${VERSION.replace(/\./g, '\\.')}, pid 1 \\(init\\), up \\d+ s, running$`, 'm'));
    expect(table.stdout).toMatch(new RegExp(`^main child\\s+pid ${s.mainChild.pid} running: ${ZOMBIE_POD.join(' ')}$`, 'm'));
    expect(table.stdout).toMatch(/^reaped\s+0 \(0 orphans\)$/m);
    expect(table.stdout).toMatch(/^zombies\s+3$/m);
    for (const group of s.zombies) {
      expect(table.stdout).toContain(`held by pid ${group.pid} (${group.command}): 1, oldest`);
    }
  });

  it('is a liveness probe: --max-zombies N exits 1 only when more than N zombies exist', async () => {
    const socket = path.join(freshDir(), 'status.sock');
    const run = await startPid1(['--status-socket', socket, '--', ...ZOMBIE_POD]);
    await run.waitFor('zombie-pod-started');
    await until(async () => existsSync(socket) && (await statusJson(socket, run.pid1)).zombieCount === 3, 10_000, 'three zombies');

    const asPid1 = ['--pid', String(run.pid1)];  // from the host, sexton is not PID 1
    const over = await status(['--socket', socket, ...asPid1, '--max-zombies', '0']);
    expect(over.exitCode).toBe(1);
    expect(over.stderr).toContain('3 zombies, more than --max-zombies 0');
    expect((await status(['--socket', socket, ...asPid1, '--max-zombies', '3'])).exitCode).toBe(0);
    const under = await status(['--json', `--socket=${socket}`, `--pid=${run.pid1}`, '--max-zombies=10']);
    expect(under.exitCode).toBe(0);
    expect(JSON.parse(under.stdout).zombieCount).toBe(3);
  });

  it('keeps its socket owner-only and removes it at exit', async () => {
    const socket = path.join(freshDir(), 'status.sock');
    const run = await startPid1(['--status-socket', socket, '--', ...leakingApp(0, 0)]);
    await run.waitFor('ready');
    // Bound under umask 022 (owner-only write, so owner-only connect), then made 0600.
    await until(() => existsSync(socket) && (statSync(socket).mode & 0o777) === 0o600, 5000, 'the status socket, mode 600');
    const st = statSync(socket);
    expect(st.isSocket()).toBe(true);
    expect(st.uid).toBe(process.getuid?.());

    run.signal('SIGTERM');
    expect((await run.done()).exitCode).toBe(3);
    expect(existsSync(socket)).toBe(false);
  });

  it('counts orphans by command and signals received, forwarded and dropped by name', async () => {
    const socket = path.join(freshDir(), 'status.sock');
    const run = await startPid1(['--status-socket', socket, '--rewrite', 'USR1:none', '--', ...leakingApp(15, 0)]);
    await run.waitFor('ready');
    run.signal('SIGUSR2');
    await run.waitFor('USR2');
    run.signal('SIGUSR1');
    const snap = await until(async () => {
      const s = existsSync(socket) ? await statusJson(socket, run.pid1) : undefined;
      return s?.signals.dropped.USR1 === 1 && s.orphansReaped === 30 ? s : undefined;
    }, 10_000, 'the dropped USR1 and 30 orphans in the status');
    // 15 orphans exec'd /bin/true, 15 were forked shells: names read before the reap.
    expect(snap.orphansByCommand).toEqual({ true: 15, sh: 15 });
    expect(snap.reaped).toBe(30);
    expect(snap.signals).toEqual({ received: { USR2: 1, USR1: 1 }, forwarded: { USR2: 1 }, dropped: { USR1: 1 } });

    const table = (await status(['--socket', socket, '--pid', String(run.pid1)])).stdout;
    expect(table).toMatch(/^reaped\s+30 \(30 orphans\)$/m);
    expect(table).toMatch(/^orphans by command\s+(true 15, sh 15|sh 15, true 15)$/m);
    expect(table).toMatch(/^signals received\s+(USR2 1 USR1 1|USR1 1 USR2 1)$/m);
    expect(table).toMatch(/^signals forwarded\s+USR2 1$/m);
    expect(table).toMatch(/^signals dropped\s+USR1 1$/m);
  });

  it('counts the orphans workload by command name', async () => {
    const socket = path.join(freshDir(), 'status.sock');
    const run = await startPid1(['--status-socket', socket, '--', ...workload('orphans', '50')]);
    await run.waitFor('orphans-created');
    const snap = await until(async () => {
      const s = existsSync(socket) ? await statusJson(socket, run.pid1) : undefined;
      return s?.orphansReaped >= 50 ? s : undefined;
    }, 10_000, '50 orphans in the status');
    // Its orphans are shells running the builtin `true`: named 'sh' (an exec'd one would be 'true');
    // any that a burst left unnamed are a number of their own, never a command.
    const counts = Object.entries(snap.orphansByCommand) as [string, number][];
    expect(counts.length).toBeGreaterThan(0);
    for (const [name] of counts) expect(['sh', 'true']).toContain(name);
    expect(counts.reduce((sum, [, n]) => sum + n, 0) + snap.orphansUnnamed).toBe(snap.orphansReaped);
    expect(snap.reaped).toBe(snap.orphansReaped);
  });

  it('says clearly that no sexton is running, and exits 3', async () => {
    const dir = freshDir();
    const nobody = path.join(dir, 'nobody.sock');
    const missing = await status(['--socket', nobody]);
    expect(missing.exitCode).toBe(3);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/no sexton is answering/);
    expect(missing.stderr).toContain(`${nobody}: ENOENT`);

    // A socket file left behind by a sexton that was SIGKILLed: nobody listens there any more.
    const stale = path.join(dir, 'stale.sock');
    const run = await startPid1(['--status-socket', stale, '--', ...leakingApp(0, 0)]);
    await run.waitFor('ready');
    await until(() => existsSync(stale), 5000, 'the status socket');
    run.signal('SIGKILL');
    await run.done();
    expect(statSync(stale).isSocket()).toBe(true);
    const refused = await status(['--json', '--socket', stale]);
    expect(refused.exitCode).toBe(3);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`no sexton is answering (${stale}: ECONNREFUSED)`);
  });

  it('rejects bad input with exit 64 (2 is reserved by Docker health checks), in one escaped line', async () => {
    const unknown = await status(['--bogus']);
    expect(unknown.exitCode).toBe(64);
    expect(unknown.stderr).toBe(`sexton status: unknown option '--bogus'; try 'sexton status --help'`);
    const notNumber = await status(['--max-zombies', 'many\nlines']);
    expect(notNumber.exitCode).toBe(64);
    expect(notNumber.stderr).toBe("sexton status: --max-zombies needs a whole number, not 'many\\nlines'");
    expect((await status(['--max-zombies'])).exitCode).toBe(64);
    expect((await status(['--pid', '0'])).exitCode).toBe(64);
  });
});

describe('status socket on and off', () => {
  it('never deletes a file that is not a socket at the --status-socket path', async () => {
    const dir = freshDir();
    const precious = path.join(dir, 'data.txt');
    writeFileSync(precious, 'precious\n');
    const run = await startPid1(['--status-socket', precious, '--', ...leakingApp(0, 0)]);
    await run.waitFor('ready');
    // The status socket's start has met the file and left it: its line is the event.
    await run.waitFor(`status socket: ${precious} exists and is not a socket; leaving it alone`, 'stderr');
    run.signal('SIGTERM');
    expect((await run.done()).exitCode).toBe(3);
    expect(existsSync(precious) && readFileSync(precious, 'utf8')).toBe('precious\n');
  });


  it('listens by default as PID 1 on an abstract socket named after its PID namespace, and `sexton status` finds it', async () => {
    const run = await startPid1(['--', ...leakingApp(0, 0)]);
    await run.waitFor('ready');
    const name = `@sexton-status.${statSync(`/proc/${run.pid1}/ns/pid`).ino}`;
    await until(() => unixSocketInode(run.pid1, name) !== undefined, 5000, `the abstract socket ${name}`);
    expect(ownSocketInodes(run.pid1)).toContain(unixSocketInode(run.pid1, name));
    // Inside the container (its PID namespace), `sexton status` needs no option at all.
    const inside = await execa('nsenter', ['--target', String(run.pid1), '--pid', '--mount', '--', process.execPath, SEXTON, 'status', '--json'], {
      reject: false, timeout: 10_000, env: { SEXTON_STATUS_SOCKET: '' },
    });
    expect(inside.exitCode, `${inside.stdout}\n${inside.stderr}`).toBe(0);
    expect(JSON.parse(inside.stdout)).toMatchObject({ pid: 1, role: 'init', phase: 'running' });
  });

  it('with an explicit path, its listening socket is the one bound there', async () => {
    const socket = path.join(freshDir(), 'status.sock');
    const run = await startPid1(['--status-socket', socket, '--', ...leakingApp(0, 0)]);
    await run.waitFor('ready');
    await until(() => existsSync(socket), 5000, 'the status socket');
    const inode = unixSocketInode(run.pid1, socket);
    expect(inode).toBeDefined();
    expect(ownSocketInodes(run.pid1)).toEqual([inode]);
  });

  it('holds no socket at all with --status-socket none and no metrics or stats file', async () => {
    const run = await startPid1(['-vv', '--status-socket', 'none', '--', ...leakingApp(3, 1)]);
    await run.waitFor('ready');
    // The exporters start after the child: once they say so (at -vv), none can appear any more.
    await run.waitFor('exporters started: none', 'stderr');
    expect(ownSocketInodes(run.pid1)).toEqual([]);
  });
});

describe('Prometheus metrics', () => {
  it('serves metrics that promtool accepts, with the counts of a leaking app', async () => {
    await promtool();  // fails the test when it cannot be installed
    const port = await freePort();
    const socket = path.join(freshDir(), 'status.sock');
    const run = await startPid1(['--status-socket', socket, '--metrics', `127.0.0.1:${port}`, '--', ...leakingApp(10, 3)]);
    await run.waitFor('ready');
    run.signal('SIGUSR2');
    await run.waitFor('USR2');

    const url = `http://127.0.0.1:${port}/metrics`;
    let contentType = '';
    const body = await until(async () => {
      try {
        const response = await fetch(url);
        contentType = response.headers.get('content-type') ?? '';
        const body = await response.text();
        return sample(body, 'sexton_zombies') === 3 && sample(body, 'sexton_reaped_total{kind="orphan"}') === 20 ? body : undefined;
      } catch {
        return undefined;  // not listening yet
      }
    }, 10_000, `3 zombies and 20 orphans on ${url}`);

    const check = await checkMetrics(body);
    expect(check.output).toBe('');
    expect(check.exitCode).toBe(0);
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const [name, type] of [['sexton_reaped_total', 'counter'], ['sexton_zombies', 'gauge'], ['sexton_signals_forwarded_total', 'counter']]) {
      expect(body).toMatch(new RegExp(`^# HELP ${name} \\S`, 'm'));
      expect(body).toContain(`# TYPE ${name} ${type}\n`);
    }
    expect(sample(body, 'sexton_zombies')).toBe(3);
    expect(sample(body, 'sexton_zombie_parents')).toBe(3);
    expect(sample(body, 'sexton_reaped_total{kind="orphan"}')).toBe(20);
    expect(sample(body, 'sexton_reaped_total{kind="main"}')).toBe(0);
    expect(sample(body, 'sexton_named_orphans_reaped_total{command="true"}')).toBe(10);
    expect(sample(body, 'sexton_signals_forwarded_total{signal="USR2"}')).toBe(1);
    expect(sample(body, 'sexton_signals_received_total{signal="USR2"}')).toBe(1);
    expect(sample(body, 'sexton_main_child_running')).toBe(1);
    expect(sample(body, 'sexton_shutdown_phase{phase="running"}')).toBe(1);
    expect(sample(body, 'sexton_unnamed_orphans_reaped_total')).toBe(0);
    expect(sample(body, `sexton_build_info{version="${VERSION}"}`)).toBe(1);
    // Labelled counters exist before their first count.
    expect(sample(body, 'sexton_signals_received_total{signal="TERM"}')).toBe(0);
    expect(sample(body, 'sexton_signals_dropped_total{signal="USR2"}')).toBe(0);
    // process_* are sexton's (PID 1's) own, read from /proc/self.
    const started = sample(body, 'process_start_time_seconds') as number;
    const hostStart = Number(readFileSync(`/proc/${run.pid1}/stat`, 'latin1').split(') ')[1].split(' ')[19]) / 100;
    const btime = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'latin1'))?.[1]);
    expect(started).toBeCloseTo(btime + hostStart, 1);
    // Give or take the connections of this scrape and the next, opened and closed meanwhile.
    expect(Math.abs((sample(body, 'process_open_fds') as number) - readdirSync(`/proc/${run.pid1}/fd`).length)).toBeLessThanOrEqual(3);
    expect(sample(body, 'process_resident_memory_bytes')).toBeGreaterThan(sample(body, 'sexton_resident_anonymous_memory_bytes') as number);

    const notFound = await fetch(`http://127.0.0.1:${port}/nothing`);
    expect(notFound.status).toBe(404);
  });

  it('escapes command names in labels so that promtool still accepts them', async () => {
    await promtool();
    const dir = freshDir();
    const oddName = path.join(dir, 'we"ir\\d');  // a quote and a backslash, both escaped in labels
    symlinkSync('/bin/true', oddName);
    const port = await freePort();
    const run = await startPid1(['--status-socket', 'none', '--metrics', `127.0.0.1:${port}`, '--',
      'sh', '-c', '( "$0" & ); echo ready; exec sleep 100', oddName]);
    await run.waitFor('ready');
    const series = 'sexton_named_orphans_reaped_total{command="we\\"ir\\\\d"}';
    const body = await until(async () => {
      const text = await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text(), () => '');
      return sample(text, series) === 1 ? text : undefined;
    }, 10_000, `${series} 1`);
    expect(await checkMetrics(body)).toEqual({ exitCode: 0, output: '' });
  });

  it('rejects a bad --metrics address before starting anything', async () => {
    const run = await startPid1(['--status-socket', 'none', '--metrics', 'nowhere', '--', 'true']);
    const result = await run.done();
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("metrics 'nowhere': expected HOST:PORT");
  });
});

describe('stats file', () => {
  it('is written shortly after start, rewritten on change only, atomically, and finally at exit', async () => {
    const dir = freshDir();
    const file = path.join(dir, 'stats.json');
    const run = await startPid1(['--status-socket', 'none', '--stats-file', file, '--', ...leakingApp(5, 0)]);
    // Every read must parse: a reader never sees half a file.
    const read = () => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined);
    await until(() => existsSync(file), 3000, 'the stats file, shortly after start');
    await run.waitFor('ready');

    const first = await until(() => read()?.orphansReaped === 10 && read(), 5000, 'the stats file with 10 orphans');
    expect(first).toMatchObject({ pid: 1, role: 'init', phase: 'running', mainChild: { state: 'running' }, reaped: 10 });
    expect(first.orphansByCommand).toEqual({ true: 5, sh: 5 });

    // Nothing changes: no rewrite (each atomic write is a rename, a new inode). The file's check
    // runs once a second and says nothing when it finds no change, so two of them are waited out:
    // no event marks a check that wrote nothing.
    const inode = statSync(file).ino;
    await new Promise((r) => setTimeout(r, 2500));
    expect(statSync(file).ino).toBe(inode);

    // A change (a signal) shows up after the debounce.
    const sentAt = Date.now();
    run.signal('SIGUSR2');
    await until(() => read()?.signals.forwarded.USR2 === 1, 5000, 'USR2 in the stats file');
    expect(Date.now() - sentAt).toBeLessThan(4000);

    run.signal('SIGTERM');
    const result = await run.done();
    expect(result.exitCode).toBe(3);
    const last = read();
    expect(last.mainChild).toMatchObject({ state: 'exited', exitCode: 3 });
    expect(last.mainChild.signal).toBeUndefined();
    expect(last.phase).toBe('stopping');
    expect(last.signals.received).toEqual({ USR2: 1, TERM: 1 });
    // The main child, 10 orphans, and the `sleep` the app was waiting on (a leftover sexton TERMed).
    expect(last.orphansReaped).toBe(11);
    expect(last.reaped).toBe(12);
    expect(last.orphansByCommand).toEqual({ true: 5, sh: 5, sleep: 1 });
    expect(last.zombieCount).toBe(0);
    expect(readdirSync(dir)).toEqual(['stats.json']);
  });

  it('is written at exit even when the command is over in moments, or cannot run at all', async () => {
    const dir = freshDir();
    const quick = path.join(dir, 'quick.json');
    const done = await (await startPid1(['--status-socket', 'none', '--stats-file', quick, '--', 'sh', '-c', 'exit 4'])).done();
    expect(done.exitCode).toBe(4);
    expect(JSON.parse(readFileSync(quick, 'utf8')).mainChild).toMatchObject({ state: 'exited', exitCode: 4 });

    const broken = path.join(dir, 'broken.json');
    const failed = await (await startPid1(['--status-socket', 'none', '--stats-file', broken, '--', 'no-such-command'])).done();
    expect(failed.exitCode).toBe(127);
    expect(JSON.parse(readFileSync(broken, 'utf8')).mainChild).toMatchObject({ state: 'exited', exitCode: 127 });
  });

  it('is rewritten when zombies appear, not only when counters move', async () => {
    const file = path.join(freshDir(), 'stats.json');
    // After 2 s a live `sleep` starts holding a zombie: no reap, no signal, only /proc changes.
    const run = await startPid1(['--status-socket', 'none', '--stats-file', file, '--',
      'sh', '-c', '(sleep 2; exec sh -c ": & exec sleep 100") & echo ready; exec sleep 100']);
    await run.waitFor('ready');
    await until(() => existsSync(file), 3000, 'the stats file');
    await until(() => zombiesUnder(run.pid1).length === 1, 6000, 'the zombie');
    const read = () => JSON.parse(readFileSync(file, 'utf8'));
    await until(() => read().zombieCount === 1, 3000, `zombieCount 1 in the stats file; have ${JSON.stringify(read().zombies)}`);
  });
});

describe('JSON logs', () => {
  it('writes one JSON object per line, with fields on the survivor lines', async () => {
    // The app's own `sleep 1000` dies of the leftovers' TERM; on a loaded machine that took over
    // a 1 s grace period once (a third survivor line): 3 s leaves it room, and the two that ignore TERM outlive any.
    const run = await startPid1(['--status-socket', 'none', '--log-format', 'json', '-v', '--grace', '3', '--', ...leakingApp(2, 2)]);
    await run.waitFor('ready');
    run.signal('SIGTERM');
    const result = await run.done();
    expect(result.exitCode).toBe(3);

    const lines = result.stderr.split('\n').filter((l) => l !== '');
    expect(lines.length).toBeGreaterThanOrEqual(5);
    const entries = lines.map((line) => {
      let entry;
      expect(() => (entry = JSON.parse(line)), line).not.toThrow();
      return entry as unknown as Record<string, unknown>;
    });
    for (const entry of entries) {
      expect(typeof entry.time).toBe('string');
      expect(new Date(entry.time as string).toISOString()).toBe(entry.time);
      expect(['error', 'warn', 'info', 'debug']).toContain(entry.level);
      expect(typeof entry.message).toBe('string');
    }
    expect(entries.some((e) => e.level === 'info' && /started 'sh /.test(e.message as string))).toBe(true);

    // The two `sleep` parents ignore TERM: killed when the grace period ends, with their details.
    const survivors = entries.filter((e) => /grace period over: killing/.test(e.message as string));
    expect(survivors).toHaveLength(2);
    for (const s of survivors) {
      expect(s).toMatchObject({ level: 'warn', command: 'sleep 1000', state: 'S' });
      expect(Number.isInteger(s.pid)).toBe(true);
    }
    const held = entries.filter((e) => e.state === 'Z');
    expect(held).toHaveLength(2);
    for (const z of held) expect(z).toMatchObject({ command: 'sh' });

    const summary = entries[entries.length - 1];
    expect(summary).toMatchObject({ level: 'warn', exitCode: 3 });
    expect(summary.message).toMatch(/^exiting with 3: reaped /);
  });
});
