#!/usr/bin/env node
// Figures, sexton beside tini under the real limits (needs root and the
// cgroup v1 memory controller):
//
//   node bench/measure/faults.mjs [--rounds N] [--sexton PATH] [--only memory,room,oom,grace,flood]
//
// - OOM victim: a memory cgroup of 64, 96 or 256 MiB, CAP_SYS_RESOURCE dropped from the
//   bounding set as in a container, and an app that outgrows it (one big child, or workers of
//   12 MiB). Who the kernel killed: the init (PID 1 gone) or app processes (and how many).
// - Memory: PID 1's VmRSS/RssAnon/RssFile and the cgroup's memory.usage_in_bytes for a cgroup
//   holding only the init and `sleep`, minus the same for `sleep` alone as PID 1.
// - Grace precision with a full stderr pipe: TERM to a child that ignores it, `-t 1`, stderr a
//   FIFO filled to the last byte that nobody reads; from kill(TERM) until the child is dead.
// - A 10 s flood of SIGUSR1 at 10k/s with -vv into the full pipe: sexton's RssAnon.
// Prints markdown tables (for the notes in bench/RESULTS.md). --sexton measures another build
// (without the `--child-oom-score-adj off` column).
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { makeCgroup } from '../lib/cgroups.mjs';
import { childrenOf, findPid1, msBetween, now, PID1_ENV, sleep, UNSHARE, until } from '../lib/pid1.mjs';
import { memoryOf } from '../lib/procfs.mjs';
import { median } from '../lib/stats.mjs';
import { compileFaultFixture as compile, SEXTON } from '../lib/setup.mjs';

const TINI = '/usr/bin/tini';
const WORKER_MIB = 12;
const LIMITS_MIB = [64, 96, 256];
const log = (message) => process.stderr.write(`faults: ${message}\n`);

/** Every unshare this script started and has not seen exit: SIGKILLed (by pid) on the way out. */
const live = new Set();

/** A memory cgroup of its own, with a limit when one is given. */
function memoryCgroup(label, limitMiB) {
  const cgroup = makeCgroup('memory', `faults-${label}`);
  if (limitMiB) cgroup.limitMemory(limitMiB * 2 ** 20);
  const counts = cgroup.dir.startsWith('/sys/fs/cgroup/memory/') ? 'memory.oom_control' : 'memory.events';  // v1 : v2
  return { ...cgroup, oomKills: () => Number(/^oom_kill (\d+)$/m.exec(cgroup.read(counts))?.[1]) };
}

/** Starts argv as PID 1 inside `cgroup` without CAP_SYS_RESOURCE; stderr to `stderr` (default ignored). */
async function startInCgroup(cgroup, argv, { stderr = 'ignore' } = {}) {
  const join = cgroup ? [`echo $$ > ${cgroup.dir}/cgroup.procs && exec setpriv --bounding-set -sys_resource -- "$@"`] : ['exec "$@"'];
  const proc = spawn('/bin/sh', ['-c', ...join, 'sh', ...UNSHARE, ...argv], {
    stdio: ['ignore', 'pipe', stderr], env: PID1_ENV,
  });
  live.add(proc);
  let stdout = '';
  proc.stdout.on('data', (d) => (stdout += d));
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => {
    live.delete(proc);
    resolve({ code, signal, at: now() });
  }));
  const pid1 = await findPid1(proc.pid, exited, { timeoutMs: 5000, everyMs: 1 });
  if (pid1 === 0) throw new Error(`PID 1 of ${argv.join(' ')} exited at once`);
  return {
    pid1,
    exited,
    stdout: () => stdout,
    startTime: startTimeOf(pid1),
    async kill() {
      if (live.has(proc)) proc.kill('SIGKILL');
      await exited;
    },
  };
}

function startTimeOf(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[19]);
  } catch {
    return undefined;
  }
}

function stateOf(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2)[0];
  } catch {
    return undefined;
  }
}

function comm(pid) {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

function descendants(pid) {
  const out = [];
  for (let i = -1; i < out.length; i++) out.push(...childrenOf(i < 0 ? pid : out[i]));
  return out;
}

const liveHogs = (pid1) => descendants(pid1).filter((pid) => comm(pid) === 'hog' && !['Z', undefined].includes(stateOf(pid)));

function kib(pid, field) {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;  // gone
  }
}

const INITS = (sexton) => [
  { name: 'sexton', argv: (command) => [process.execPath, sexton, '--status-socket', 'none', '--', ...command] },
  { name: 'sexton --child-oom-score-adj off', argv: (command) => [process.execPath, sexton, '--status-socket', 'none', '--child-oom-score-adj', 'off', '--', ...command] },
  { name: 'tini', argv: (command) => [TINI, '--', ...command] },
];

const WORKLOADS = [
  { name: 'one big child', hogs: () => 1, hogMiB: (limit) => 2 * limit, command: (hog, limit) => ['sh', '-c', '"$0" $1; exec sleep 600', hog, String(2 * limit)] },
  {
    name: `workers of ${WORKER_MIB} MiB`,
    hogs: (limit) => Math.max(8, Math.ceil((limit * 1.5) / WORKER_MIB)),
    hogMiB: () => WORKER_MIB,
    command: (hog, limit) => ['sh', '-c', 'i=0; while [ $i -lt $1 ]; do "$0" 12 & i=$((i+1)); done; wait', hog, String(Math.max(8, Math.ceil((limit * 1.5) / WORKER_MIB)))],
  },
];

/** One run: who the OOM killer took. */
async function oomRound(init, workload, limit, hog) {
  const cgroup = memoryCgroup('oom', limit);
  const run = await startInCgroup(cgroup, init.argv(workload.command(hog, limit)));
  try {
    const outcome = await until(() => {
      if (startTimeOf(run.pid1) !== run.startTime || stateOf(run.pid1) === 'Z') return 'init';
      if (!(cgroup.oomKills() >= 1)) return undefined;
      const hogs = liveHogs(run.pid1);
      return hogs.every((pid) => kib(pid, 'VmRSS') >= workload.hogMiB(limit) * 1024) && 'app';
    }, 20_000, `the OOM under ${init.name}`);
    return { victim: outcome, kills: cgroup.oomKills() };
  } finally {
    await run.kill();
    await cgroup.remove();
  }
}

async function measureOomVictims(inits, hog, rounds) {
  const rows = [];
  for (const workload of WORKLOADS) {
    for (const limit of LIMITS_MIB) {
      const row = { workload: workload.name, limit, cells: [] };
      for (const init of inits) {
        const outcomes = [];
        for (let r = 0; r < rounds; r++) outcomes.push(await oomRound(init, workload, limit, hog));
        row.cells.push(outcomes);
      }
      log(`OOM ${workload.name} at ${limit} MiB: ${row.cells.map((c, i) => `${inits[i].name} ${c.map((o) => o.victim).join('/')}`).join(', ')}`);
      rows.push(row);
    }
  }
  return rows;
}

function describeOutcomes(outcomes) {
  if (outcomes.length === 0) return '—';
  const init = outcomes.filter((o) => o.victim === 'init').length;
  if (init === outcomes.length) return `**init** ${init}/${outcomes.length}`;
  const kills = outcomes.filter((o) => o.victim === 'app').map((o) => o.kills);
  return `${init ? `**init** ${init}/${outcomes.length}, ` : ''}app ${kills.length}/${outcomes.length} (${Math.min(...kills)}–${Math.max(...kills)} kill(s))`;
}

/**
 * PID 1 and its memory cgroup charge with only `sleep` as the app, minus `sleep` alone. A file
 * page is charged to the cgroup that first read it: the host's node binary is in the page cache
 * already (charged elsewhere), as in a container whose image shares it with others. A container
 * with a node binary of its own pays for its pages: the "cold" row runs sexton from a copy of
 * node written with O_DIRECT and dropped from the cache before each round.
 */
async function measureCharge(inits, rounds, { sexton, dir }) {
  const sample = async (argv, before = () => {}) => {
    before();
    const cgroup = memoryCgroup('charge');
    const run = await startInCgroup(cgroup, argv);
    try {
      await sleep(2500);  // sexton gives back its file pages ~1 s after start
      const mib = (file) => Number(cgroup.read(file)) / 2 ** 20;
      const stat = (key) => Number(new RegExp(`^${key} (\\d+)$`, 'm').exec(cgroup.read('memory.stat'))?.[1]) / 2 ** 20;
      return {
        usage: mib('memory.usage_in_bytes'), peak: mib('memory.max_usage_in_bytes'),
        anon: stat('rss'), cache: stat('cache'), mapped: stat('mapped_file'), ...memoryOf(run.pid1),
      };
    } finally {
      await run.kill();
      await cgroup.remove();
    }
  };
  const coldNode = path.join(dir, 'node');
  execFileSync('dd', [`if=${process.execPath}`, `of=${coldNode}`, 'bs=4M', 'oflag=direct', 'status=none']);
  execFileSync('chmod', ['+x', coldNode]);
  const dropColdNode = () => execFileSync('dd', [`if=${coldNode}`, 'iflag=nocache', 'count=0', 'status=none']);
  const rows = [
    ...inits.filter((i) => !i.name.includes('off')).map((init) => ({ name: init.name, argv: init.argv(['/bin/sleep', '600']) })),
    { name: 'sexton, cold: its node binary not in the page cache', argv: [coldNode, sexton, '--status-socket', 'none', '--', '/bin/sleep', '600'], before: dropColdNode },
  ];
  const baseline = [];
  for (let r = 0; r < rounds; r++) baseline.push(await sample(['/bin/sleep', '600']));
  const base = (key) => median(baseline.map((b) => b[key]));
  const out = [];
  for (const row of rows) {
    const samples = [];
    for (let r = 0; r < rounds; r++) samples.push(await sample(row.argv, row.before));
    const m = (key) => median(samples.map((s) => s[key]));
    out.push({
      name: row.name, charge: m('usage') - base('usage'), peak: m('peak') - base('usage'),
      anon: m('anon') - base('anon'), cache: m('cache') - base('cache'), mapped: m('mapped') - base('mapped'),
      vmRss: m('vmRss') / 1024, rssAnon: m('rssAnon') / 1024, rssFile: m('rssFile') / 1024,
    });
  }
  return { rows: out, baseline: base('usage') };
}

/**
 * How much of the limit the app gets: one process grows a MiB at a time until the OOM killer
 * ends it, under each init and as PID 1 itself; the last MiB it reported is its room.
 */
async function measureRoom(inits, hog, rounds, { sexton, dir }) {
  const coldNode = path.join(dir, 'node');
  const rows = [
    { name: 'none (the app is PID 1)', argv: (command) => command },
    ...inits.filter((i) => !i.name.includes('off')),
  ];
  if (existsSync(coldNode)) {
    rows.push({
      name: 'sexton, cold node binary',
      argv: (command) => [coldNode, sexton, '--status-socket', 'none', '--', ...command],
      before: () => execFileSync('dd', [`if=${coldNode}`, 'iflag=nocache', 'count=0', 'status=none']),
    });
  }
  const out = [];
  for (const row of rows) {
    const cells = [];
    for (const limit of LIMITS_MIB) {
      const rooms = [];
      for (let r = 0; r < rounds; r++) {
        row.before?.();
        const cgroup = memoryCgroup('room', limit);
        const run = await startInCgroup(cgroup, row.argv([hog, String(2 * limit), 'progress']));
        try {
          await Promise.race([run.exited, sleep(20_000)]);
          rooms.push(Number(run.stdout().trim().split('\n').at(-1)));
        } finally {
          await run.kill();
          await cgroup.remove();
        }
      }
      cells.push(median(rooms));
    }
    log(`room under ${row.name}: ${cells.join(' / ')} MiB`);
    out.push({ name: row.name, cells });
  }
  return out;
}

/** A FIFO filled to the last byte; its read end held and never read. */
function stuckFifo(dir) {
  const fifo = path.join(dir, `stderr-${Math.random().toString(36).slice(2)}.fifo`);
  execFileSync('mkfifo', [fifo]);
  const readFd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const writeFd = openSync(fifo, constants.O_WRONLY);
  const fill = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
  for (const chunk of ['x'.repeat(4096), 'x']) {
    for (;;) {
      try {
        writeSync(fill, chunk);
      } catch {
        break;
      }
    }
  }
  closeSync(fill);
  return { writeFd, close: () => closeSync(readFd) };
}

const nap = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

async function measureGrace(sexton, dir, rounds) {
  const offsets = [];
  for (let r = 0; r < rounds; r++) {
    const pipe = stuckFifo(dir);
    const run = await startInCgroup(undefined, [process.execPath, sexton, '-t', '1', '--status-socket', 'none', '--', 'sh', '-c', 'trap "" TERM; echo ready; exec sleep 600'], { stderr: pipe.writeFd });
    closeSync(pipe.writeFd);
    try {
      await until(() => run.stdout().includes('ready'), 5000, 'ready');
      const child = await until(() => childrenOf(run.pid1).find((pid) => comm(pid) === 'sleep'), 5000, 'sleep');
      await sleep(300);
      const sent = now();
      process.kill(run.pid1, 'SIGTERM');
      let killed;
      while (msBetween(sent, now()) < 5000) {
        if (['Z', undefined].includes(stateOf(child))) {
          killed = now();
          break;
        }
        nap(0.2);
      }
      offsets.push(killed === undefined ? Infinity : msBetween(sent, killed) - 1000);
    } finally {
      await run.kill();
      pipe.close();
    }
  }
  return offsets;
}

async function measureFlood(sexton, dir, flood) {
  const pipe = stuckFifo(dir);
  const run = await startInCgroup(undefined, [process.execPath, sexton, '-vv', '--status-socket', 'none', '--', 'sh', '-c', 'trap "" USR1; echo ready; exec sleep 600'], { stderr: pipe.writeFd });
  closeSync(pipe.writeFd);
  try {
    await until(() => run.stdout().includes('ready'), 5000, 'ready');
    await sleep(2000);
    const before = kib(run.pid1, 'RssAnon');
    execFileSync(flood, [String(run.pid1), '10', '10000', '10'], { stdio: 'ignore' });
    const after = kib(run.pid1, 'RssAnon');
    const sent = now();
    process.kill(run.pid1, 'SIGTERM');
    const exit = await Promise.race([run.exited, sleep(5000).then(() => undefined)]);
    return { before: before / 1024, after: after / 1024, termToExitMs: exit ? msBetween(sent, exit.at) : undefined };
  } finally {
    await run.kill();
    pipe.close();
  }
}

async function main(args) {
  const rounds = Number(args[args.indexOf('--rounds') + 1] ?? 3) || 3;
  const sexton = args.includes('--sexton') ? path.resolve(args[args.indexOf('--sexton') + 1]) : SEXTON;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sexton-bench-faults-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const hog = compile(dir, 'hog');
  const flood = compile(dir, 'flood');
  // Another build (an older one, to compare) may not know --child-oom-score-adj.
  const inits = INITS(sexton).filter((init) => sexton === SEXTON || !init.name.includes('off'));

  const only = args.includes('--only') ? args[args.indexOf('--only') + 1].split(',') : ['memory', 'room', 'oom', 'grace', 'flood'];
  const f = (n, d = 1) => (n === undefined ? '—' : n.toFixed(d));
  const lines = [];
  if (only.includes('oom')) {
    log('OOM victims…');
    const victims = await measureOomVictims(inits, hog, rounds);
    lines.push(
      `OOM victim (${rounds} round(s) each; "app (k kills)": PID 1 lived, k app processes were killed):`,
      '',
      `| workload | limit | ${inits.map((i) => i.name).join(' | ')} |`,
      `|---|---:|${inits.map(() => '---|').join('')}`,
      ...victims.map((row) => `| ${row.workload} | ${row.limit} MiB | ${row.cells.map(describeOutcomes).join(' | ')} |`),
      '',
    );
  }
  if (only.includes('memory')) {
    log('memory of PID 1 and its cgroup charge…');
    const charge = await measureCharge(inits, rounds, { sexton, dir });
    lines.push(
      `Memory with only \`sleep\` as the app (medians of ${rounds}; charge: memory.usage_in_bytes 2.5 s in, minus \`sleep\` alone as PID 1, ${f(charge.baseline, 2)} MiB; peak: memory.max_usage_in_bytes, minus the same):`,
      '',
      '| init | charge (MiB) | of it anon / page cache / mapped | peak charge (MiB) | VmRSS (MiB) | RssAnon (MiB) | RssFile (MiB) |',
      '|---|---:|---:|---:|---:|---:|---:|',
      ...charge.rows.map((r) => `| ${r.name} | ${f(r.charge)} | ${f(r.anon)} / ${f(r.cache)} / ${f(r.mapped)} | ${f(r.peak)} | ${f(r.vmRss)} | ${f(r.rssAnon)} | ${f(r.rssFile)} |`),
      '',
    );
  }
  if (only.includes('room')) {
    log('room for the app…');
    if (!only.includes('memory')) {
      execFileSync('dd', [`if=${process.execPath}`, `of=${path.join(dir, 'node')}`, 'bs=4M', 'oflag=direct', 'status=none']);
      execFileSync('chmod', ['+x', path.join(dir, 'node')]);
    }
    const room = await measureRoom(inits, hog, rounds, { sexton, dir });
    lines.push(
      `Room for the app: MiB one process reached before the OOM killer ended it (median of ${rounds}):`,
      '',
      `| init | ${LIMITS_MIB.map((l) => `${l} MiB limit`).join(' | ')} |`,
      `|---|${LIMITS_MIB.map(() => '---:|').join('')}`,
      ...room.map((r) => `| ${r.name} | ${r.cells.join(' | ')} |`),
      '',
    );
  }
  if (only.includes('grace')) {
    log('grace precision with a full stderr pipe…');
    const grace = await measureGrace(sexton, dir, Math.max(5, rounds));
    lines.push(`Grace precision with a full stderr pipe (\`-t 1\`, ${grace.length} rounds): SIGKILL at grace ${grace.map((o) => `${o >= 0 ? '+' : ''}${f(o)}`).join(', ')} ms (median ${f(median(grace))} ms).`, '');
  }
  if (only.includes('flood')) {
    log('signal flood into a full stderr pipe…');
    const r = await measureFlood(sexton, dir, flood);
    lines.push(`10 s of SIGUSR1 at 10k/s, -vv, full stderr pipe: RssAnon ${f(r.before)} → ${f(r.after)} MiB; TERM → exit afterwards ${f(r.termToExitMs)} ms.`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

function cleanup() {
  for (const proc of live) proc.kill('SIGKILL');
}
process.on('exit', cleanup);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => process.exit(130));

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (error) => {
    log(`crashed: ${error.stack ?? error}`);
    process.exit(2);
  },
);
