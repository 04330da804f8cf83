// Health: what probes cost a pod.
//   1. GET /readyz at 200 probes/s, a new connection each (as kubelet probes): latency and
//      sexton's CPU (its utime + stime from /proc over the run).
//   2. `sexton probe -- true` per call against `timeout 10 true`: wall time and peak RSS
//      (/usr/bin/time's %M), what an exec probe costs inside the pod's limits.
//   3. Idle wake-ups with --health on: context switches of every sexton thread over a window.
//
//   node bench/measure/health.mjs [--quick]     prints markdown
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { contextSwitches } from '../lib/procfs.mjs';
import { childrenOf, killAll, sleep, startPid1, until } from '../lib/pid1.mjs';
import { median, percentile } from '../lib/stats.mjs';
import { freePort } from '../lib/net.mjs';
import { requireBuilt, SEXTON } from '../lib/setup.mjs';

const TICKS = 100;


function get(port, path) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const req = request({ host: '127.0.0.1', port, path, agent: false, timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', () => resolve({ code: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve({ code: 0, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
    req.end();
  });
}

function cpuTicks(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
}

async function withSexton(args, body) {
  const run = await startPid1([process.execPath, SEXTON, ...args, '--', 'sleep', '100000']);
  try {
    await until(() => childrenOf(run.pid1).length > 0, 10_000, 'the child');
    return await body(run);
  } finally {
    killAll();
  }
}

export async function measureReadyz({ seconds = 5, rate = 200 } = {}) {
  const port = await freePort();
  return withSexton(['--health', `127.0.0.1:${port}`], async (run) => {
    const deadline = Date.now() + 20_000;
    while ((await get(port, '/readyz')).code !== 200) {
      if (Date.now() > deadline) throw new Error('no /readyz answer');
      await sleep(50);
    }
    const total = seconds * rate;
    const ticksBefore = cpuTicks(run.pid1);
    const started = Date.now();
    const results = [];
    const pending = [];
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / rate;
      const wait = due - Date.now();
      if (wait > 0) await sleep(wait);
      pending.push(get(port, '/readyz').then((r) => results.push(r)));
    }
    await Promise.all(pending);
    const elapsed = (Date.now() - started) / 1000;
    const cpu = (cpuTicks(run.pid1) - ticksBefore) / TICKS;
    const ms = results.map((r) => r.ms);
    return {
      probes: total, failed: results.filter((r) => r.code !== 200).length, achievedRate: total / elapsed,
      medianMs: median(ms), p99Ms: percentile(ms, 99), cpuShare: cpu / elapsed,
    };
  });
}

function timed(argv) {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', ...argv], { encoding: 'utf8' });
  const [wall, kb] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
  return { status: r.status, ms: wall * 1000, rssKb: kb };
}

export function measureProbeCost({ rounds = 20 } = {}) {
  const kinds = {
    'sexton probe -- true': [process.execPath, SEXTON, 'probe', '--timeout', '10', '--', 'true'],
    'timeout 10 true': ['timeout', '10', 'true'],
  };
  const out = {};
  for (const [name, argv] of Object.entries(kinds)) {
    const runs = [];
    for (let i = 0; i < rounds; i++) runs.push(timed(argv));
    if (runs.some((r) => r.status !== 0)) throw new Error(`${name} failed`);
    out[name] = { medianMs: median(runs.map((r) => r.ms)), medianRssKb: median(runs.map((r) => r.rssKb)) };
  }
  return out;
}

export async function measureIdleWithHealth({ windowMs = 5000 } = {}) {
  const port = await freePort();
  return withSexton(['--health', `127.0.0.1:${port}`], async (run) => {
    while ((await get(port, '/readyz')).code !== 200) await sleep(50);
    await sleep(3000);  // the probe's own connection closes, the memory release runs
    const before = contextSwitches(run.pid1);
    await sleep(windowMs);
    const after = contextSwitches(run.pid1);
    let total = 0;
    for (const [tid, thread] of after) total += thread.switches - (before.get(tid)?.switches ?? 0);
    return { windowMs, wakeups: total };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  requireBuilt();
  const quick = process.argv.includes('--quick');
  const readyz = await measureReadyz({ seconds: quick ? 2 : 10 });
  console.log(`| /readyz at ${readyz.achievedRate.toFixed(0)} probes/s (${readyz.probes}) | median ${readyz.medianMs.toFixed(2)} ms, p99 ${readyz.p99Ms.toFixed(2)} ms, ${readyz.failed} failed | sexton CPU ${(readyz.cpuShare * 100).toFixed(1)}% of a core |`);
  const cost = measureProbeCost({ rounds: quick ? 5 : 20 });
  for (const [name, c] of Object.entries(cost)) console.log(`| ${name} | median ${c.medianMs.toFixed(0)} ms | peak RSS ${(c.medianRssKb / 1024).toFixed(1)} MiB |`);
  const idle = await measureIdleWithHealth({ windowMs: quick ? 2000 : 5000 });
  console.log(`| idle with --health | ${idle.wakeups} wake-ups in ${idle.windowMs / 1000} s | |`);
}
