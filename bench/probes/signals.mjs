// Why the bench's signal latency and a C sender's disagree: the same child (bench/child.c
// "signals") under each init, signals sent by the bench's Node sender and by a C sender
// (bench/probes/signal-sender.c) that blocks in read() right after kill(), or spins first, or
// with every CPU kept busy by a nice-19 spinner; candidates and conditions interleaved block by
// block. Medians and p99 in µs, ratio to tini.
//   [SEXTON_BEFORE=dist/sexton.js] node bench/probes/signals.mjs [blocks] [perBlock] [condition numbers,...] [inits,...]
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { oneBlock } from '../measure/signals.mjs';
import { PID1_ENV, UNSHARE } from '../lib/pid1.mjs';
import { candidates, compileBench } from '../lib/setup.mjs';
import { median, percentile, rotate } from '../lib/stats.mjs';

const blocks = Number(process.argv[2] ?? 4);
const perBlock = Number(process.argv[3] ?? 100);
const here = path.dirname(fileURLToPath(import.meta.url));
const dir = mkdtempSync(path.join(os.tmpdir(), 'sexton-probe-'));
const sender = path.join(dir, 'signal-sender');
execFileSync('cc', ['-O2', '-Wall', '-o', sender, path.join(here, 'signal-sender.c')]);
const forwarder = path.join(dir, 'forwarder');
execFileSync('cc', ['-O2', '-Wall', '-pthread', '-o', forwarder, path.join(here, 'forwarder.c')]);
/**
 * The C floor of each design (bench/probes/forwarder.c), and the handler design shaped like
 * sexton: as many threads (9), the handler on one of its own, 12 MiB written (sexton's VmRSS).
 */
const cInits = [
  ...['handler', 'sigwait'].map((how) => ({ name: `C ${how}`, argv: (command) => [forwarder, `--${how}`, '--', ...command] })),
  { name: 'C handler sexton-sized', argv: (command) => [forwarder, '--handler', '--threads', '7', '--touch', '12', '--', ...command] },
  // Each half of that shape alone.
  { name: 'C handler 9 threads', argv: (command) => [forwarder, '--handler', '--threads', '7', '--', ...command] },
  { name: 'C handler 12 MiB', argv: (command) => [forwarder, '--handler', '--touch', '12', '--', ...command] },
];
const child = compileBench('child');

function cSender(candidate, extra) {
  const argv = [...extra, '--count', String(perBlock), '--', ...UNSHARE, ...candidate.argv([child.binary, 'signals'])];
  const result = spawnSync(sender, argv, { env: PID1_ENV, encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) throw new Error(`signal-sender under ${candidate.name}: ${result.stderr}`);
  return result.stdout.trim().split('\n').map((ns) => Number(ns) / 1000);
}

/** A nice-19 spinner per CPU for the length of `work`: no CPU ever goes idle. */
async function withSpinners(work) {
  const spinners = os.cpus().map(() => spawn('nice', ['-n', '19', process.execPath, '-e', 'for(;;){}'], { stdio: 'ignore' }));
  try {
    return await work();
  } finally {
    for (const s of spinners) s.kill('SIGKILL');
  }
}

const CONDITIONS = {
  'node sender (the bench)': async (c) => (await oneBlock(c, child.binary, 'signals', perBlock)).latenciesUs,
  'node sender, first 10 left out': async (c) => (await oneBlock(c, child.binary, 'signals', perBlock + 10)).latenciesUs.slice(10),
  'C sender, blocks in read': async (c) => cSender(c, []),
  'C sender, spins 30 µs after kill': async (c) => cSender(c, ['--spin', '30']),
  'C sender, settle 1 s': async (c) => cSender(c, ['--settle', '1000']),
  'C sender, CPUs busy (nice-19 spinners)': (c) => withSpinners(async () => cSender(c, [])),
  'C sender, all on CPU 0': async (c) => cSender(c, []),
};
const pinned = new Set(['C sender, all on CPU 0']);
const chosen = process.argv[4] ? process.argv[4].split(',').map((i) => Object.keys(CONDITIONS)[Number(i)]) : Object.keys(CONDITIONS);
const wanted = new Set((process.argv[5] ?? 'sexton,tini,dumb-init,catatonit').split(','));
// SEXTON_BEFORE=path/to/dist/sexton.js adds "sexton before": a copy of an earlier build, side by side.
const before = process.env.SEXTON_BEFORE
  ? [{ name: 'sexton before', argv: (command) => [process.execPath, process.env.SEXTON_BEFORE, '--', ...command] }]
  : [];
const inits = [...candidates(), ...before, ...cInits].filter((c) => wanted.has(c.name) || c.name === 'sexton before');

try {
  const results = new Map();
  for (let block = 0; block < blocks; block++) {
    for (const condition of rotate(chosen, block)) {
      for (const c of rotate(inits, block)) {
        if (pinned.has(condition)) execFileSync('taskset', ['-pc', '0', String(process.pid)], { stdio: 'ignore' });
        try {
          const key = `${condition}\t${c.name}`;
          results.set(key, [...(results.get(key) ?? []), ...(await CONDITIONS[condition](c))]);
        } finally {
          if (pinned.has(condition)) execFileSync('taskset', ['-pc', `0-${os.cpus().length - 1}`, String(process.pid)], { stdio: 'ignore' });
        }
      }
    }
  }
  console.log(`signal latency, µs (${blocks} blocks of ${perBlock}; load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')})`);
  for (const condition of chosen) {
    console.log(condition);
    const ref = results.get(`${condition}\ttini`) ?? [];
    for (const c of inits) {
      const v = results.get(`${condition}\t${c.name}`);
      const m = median(v);
      const p = percentile(v, 99);
      const r = (a, b) => (ref.length ? ` (${(a / b).toFixed(2)}×)` : '');
      console.log(`  ${c.name.padEnd(12)} median ${m.toFixed(1).padStart(6)}${r(m, median(ref))}  p99 ${p.toFixed(0).padStart(5)}${r(p, percentile(ref, 99))}`);
    }
  }
} finally {
  child.remove();
  rmSync(dir, { recursive: true, force: true });
}
