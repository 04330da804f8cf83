#!/usr/bin/env node
// Memory over time: sexton and tini side by side, each PID 1 of its own namespace,
// each with the same churn for N minutes: bench/churn.c makes orphans inside the namespace, the
// bench sends SIGUSR1 to PID 1 from outside (forwarded to the churn child, which counts them),
// and every 10 s asks sexton once over its status socket (`sexton status --pid`) and scrapes its
// /metrics once. Every 10 s, halfway between two queries (sexton gives back the file pages a
// query faulted in ~1 s after it), the bench reads each init's VmRSS, RssAnon, RssFile and
// thread count from /proc.
//
//   node bench/measure/soak.mjs [--minutes N] [--rate X] [--out FILE] [--load L] [--node-flags F]... [--no-tini]
//   npm run bench:soak -- --minutes 60 --out /tmp/hour.jsonl
//
//   --rate X        multiplies the load: 200·X orphans/s and 100·X signals/s (default 1); the
//                   queries stay at one status query and one scrape every 10 s
//   --warm-up S     seconds counted as warm-up (default 120)
//   --out FILE      one JSON line per sample and candidate (and a last "summary" line)
//   --load L        which churn sources run: a comma list of orphans, signals, queries (default all)
//   --node-flags F  adds a sexton candidate run as `node F dist/sexton.js` (repeatable; F is split
//                   on spaces; leading NAME=value words go to its environment, through env(1),
//                   which execs node: node is still PID 1): compare flags side by side
//   --baseline JS   adds a sexton candidate run from another build's dist/sexton.js (before/after)
//   --no-plain      leaves plain sexton out (with --node-flags only)
//   --no-tini       leaves tini out
//
// The summary: the warm-up rise (first sample to the one at the end of the warm-up, 2 min by
// default), and the slope after it (least squares over the samples from then on), in MiB and
// MiB/min. Every namespace is
// SIGKILLed by pid when the soak ends, however it ends.
import { execFile } from 'node:child_process';
import { appendFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { killAll, sleep, startPid1 } from '../lib/pid1.mjs';
import { memoryOf } from '../lib/procfs.mjs';
import { freePort } from '../lib/net.mjs';
import { compileBench, requireBuilt, SEXTON } from '../lib/setup.mjs';

const QUERY_EVERY_MS = 10_000;
/** Samples fall halfway between queries: after the release of the pages a query touched. */
const SAMPLE_OFFSET_MS = 5_000;
const BASE_ORPHANS_PER_SECOND = 200;
const BASE_SIGNALS_PER_SECOND = 100;
const LOAD_SOURCES = ['orphans', 'signals', 'queries'];

const log = (message) => process.stderr.write(`soak: ${message}\n`);
const mib = (kib) => kib / 1024;

function parseArgs(args) {
  const out = { minutes: 10, rate: 1, warmUpMs: 120_000, out: undefined, load: new Set(LOAD_SOURCES), nodeFlags: [], baseline: undefined, plain: true, tini: true };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const value = () => {
      if (i + 1 >= args.length) throw new Error(`${arg} needs a value`);
      return args[++i];
    };
    if (arg === '--minutes') out.minutes = Number(value());
    else if (arg === '--rate') out.rate = Number(value());
    else if (arg === '--warm-up') out.warmUpMs = Number(value()) * 1000;
    else if (arg === '--out') out.out = value();
    else if (arg === '--load') out.load = new Set(value().split(',').filter(Boolean));
    else if (arg === '--node-flags') out.nodeFlags.push(value().split(' ').filter(Boolean));
    else if (arg === '--baseline') out.baseline = path.resolve(value());
    else if (arg === '--no-plain') out.plain = false;
    else if (arg === '--no-tini') out.tini = false;
    else throw new Error(`unknown argument ${arg}; see the head of bench/measure/soak.mjs`);
  }
  if (!(out.minutes > 0) || !(out.rate > 0) || !(out.warmUpMs >= 0)) throw new Error('--minutes, --rate and --warm-up take positive numbers');
  const unknown = [...out.load].filter((source) => !LOAD_SOURCES.includes(source));
  if (unknown.length > 0) throw new Error(`--load takes ${LOAD_SOURCES.join(', ')}, not ${unknown.join(', ')}`);
  return out;
}



async function candidatesFor(options) {
  const list = [];
  const sexton = async (name, flags, env = [], script = SEXTON) => {
    const port = await freePort();
    const prefix = env.length > 0 ? ['/usr/bin/env', ...env] : [];
    list.push({
      name, sexton: true, port,
      argv: (command) => [...prefix, process.execPath, ...flags, script, '--metrics', `127.0.0.1:${port}`, '--', ...command],
    });
  };
  if (options.plain) await sexton('sexton', []);
  if (options.baseline) await sexton('sexton (baseline)', [], [], options.baseline);
  for (const words of options.nodeFlags) {
    const env = words.filter((w) => /^[A-Z_][A-Z0-9_]*=/.test(w));
    const flags = words.filter((w) => !env.includes(w));
    await sexton(`sexton ${words.join(' ')}`, flags, env);
  }
  if (options.tini) list.push({ name: 'tini', argv: (command) => ['/usr/bin/tini', '--', ...command] });
  return list;
}

/** `sexton status --json` from outside the namespace: its socket is named after the namespace. */
function askStatus(pid1) {
  const namespace = statSync(`/proc/${pid1}/ns/pid`).ino;
  return new Promise((resolve) => {
    execFile(process.execPath, [SEXTON, 'status', '--json', '--socket', `@sexton-status.${namespace}`, '--pid', String(pid1)],
      { timeout: 5000, env: { PATH: process.env.PATH } }, (error, stdout) => {
        try {
          resolve(error ? { error: error.message.split('\n')[0] } : JSON.parse(stdout));
        } catch {
          resolve({ error: `not JSON: ${stdout.slice(0, 80)}` });
        }
      });
  });
}

function scrape(port) {
  return new Promise((resolve) => {
    const request = http.get({ host: '127.0.0.1', port, path: '/metrics', timeout: 5000 }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode, text }));
    });
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', (error) => resolve({ error: error.message }));
  });
}

function threadsOf(pid) {
  return readdirSync(`/proc/${pid}/task`).length;
}

/** Least-squares slope of y over x. */
export function slope(points) {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? NaN : num / den;
}

/** Warm-up rise and slope after warm-up, in MiB and MiB/min, of one field of the samples. */
export function trend(samples, field, warmUpMs) {
  const first = samples[0];
  const atWarmUp = samples.find((s) => s.atMs >= warmUpMs);
  const after = samples.filter((s) => s.atMs >= warmUpMs).map((s) => [s.atMs / 60_000, mib(s[field])]);
  const lastMs = samples.at(-1).atMs;
  const secondHalf = samples.filter((s) => s.atMs >= lastMs / 2).map((s) => [s.atMs / 60_000, mib(s[field])]);
  // Means over six windows: a sawtooth (V8's young generation, ~1 MiB) hides a trend in single samples.
  const windowMs = lastMs / 6;
  const windowMeans = [];
  for (let w = 0; w < 6; w++) {
    const inWindow = samples.filter((s) => s.atMs >= w * windowMs && (s.atMs < (w + 1) * windowMs || w === 5));
    windowMeans.push(inWindow.length ? mib(inWindow.reduce((sum, s) => sum + s[field], 0) / inWindow.length) : NaN);
  }
  return {
    start: mib(first[field]),
    warmUpRise: atWarmUp ? mib(atWarmUp[field] - first[field]) : NaN,
    slopePerMinute: slope(after),
    secondHalfSlopePerMinute: slope(secondHalf),
    windowMeans,
    end: mib(samples.at(-1)[field]),
  };
}

/** The churn child's last report: orphans made and SIGUSR1s received so far. */
function churnCounts(line) {
  const m = /^orphans (\d+) usr1 (\d+)$/.exec(line ?? '');
  return m ? { orphans: Number(m[1]), usr1: Number(m[2]) } : undefined;
}

/**
 * Sends `perSecond` SIGUSR1s a second to each PID 1, spread over 1-10 ms ticks: the number due
 * so far minus the number sent, so that a late tick does not lower the rate.
 */
function startSignals(runs, perSecond) {
  const tickMs = Math.max(1, Math.min(10, Math.floor(1000 / perSecond)));
  const started = Date.now();
  let sent = 0;
  const timer = setInterval(() => {
    const due = Math.floor(((Date.now() - started) / 1000) * perSecond);
    for (; sent < due; sent++) {
      for (const run of runs) {
        try {
          process.kill(run.pid1, 'SIGUSR1');
        } catch {
          // gone: the sampler reports it
        }
      }
    }
  }, tickMs);
  return { stop: () => clearInterval(timer), sent: () => sent };
}

export async function measureSoak(options) {
  const churn = compileBench('churn');
  const candidates = await candidatesFor(options);
  const orphansPerSecond = options.load.has('orphans') ? BASE_ORPHANS_PER_SECOND * options.rate : 0;
  const signalsPerSecond = options.load.has('signals') ? BASE_SIGNALS_PER_SECOND * options.rate : 0;
  // Without orphans the child still runs, making one orphan a minute: the init has a child to
  // forward to, and the load is the other sources alone.
  const childRate = orphansPerSecond || 1 / 60;
  const runs = [];
  const samples = new Map(candidates.map((c) => [c.name, []]));
  const childLines = new Map(candidates.map((c) => [c.name, '']));
  const queryErrors = new Map(candidates.map((c) => [c.name, 0]));
  let signals;
  try {
    for (const c of candidates) {
      const run = await startPid1(c.argv([churn.binary, String(childRate)]), { lines: true });
      runs.push(run);
      await run.expectLine('ready');
    }
    log(`${candidates.map((c, i) => `${c.name} (pid ${runs[i].pid1})`).join(', ')}: ${orphansPerSecond} orphans/s, ` +
      `${signalsPerSecond} SIGUSR1/s, queries ${options.load.has('queries') ? 'every 10 s' : 'off'}, for ${options.minutes} min`);
    // The churn child's counters, as it prints them.
    runs.forEach((run, i) => {
      (async () => {
        for (;;) {
          const line = await run.nextLine(60_000);
          if (line === null) return;
          childLines.set(candidates[i].name, line);
        }
      })();
    });
    const started = Date.now();
    if (signalsPerSecond > 0) signals = startSignals(runs, signalsPerSecond);
    const sample = (round) => {
      const load1 = os.loadavg()[0];
      const atMs = Date.now() - started;
      candidates.forEach((c, i) => {
        const pid = runs[i].pid1;
        const s = { candidate: c.name, round, atMs, ...memoryOf(pid), threads: threadsOf(pid), load1, child: childLines.get(c.name) };
        samples.get(c.name).push(s);
        if (options.out) appendFileSync(options.out, `${JSON.stringify(s)}\n`);
      });
    };
    await sleep(1000);  // past sexton's first release of file pages, 100 ms after the spawn
    sample(0);
    const end = started + options.minutes * 60_000;
    for (let round = 1; ; round++) {
      const queryAt = started + round * QUERY_EVERY_MS;
      if (queryAt > end) break;
      await sleep(queryAt - Date.now());
      if (options.load.has('queries')) {
        await Promise.all(candidates.map(async (c, i) => {
          if (!c.sexton) return;
          const [status, metrics] = await Promise.all([askStatus(runs[i].pid1), scrape(c.port)]);
          if (status.error || metrics.error || metrics.status !== 200) {
            queryErrors.set(c.name, queryErrors.get(c.name) + 1);
            if (queryErrors.get(c.name) <= 3) log(`${c.name}: query failed: ${status.error ?? metrics.error ?? `HTTP ${metrics.status}`}`);
          }
        }));
      }
      await sleep(queryAt + SAMPLE_OFFSET_MS - Date.now());
      sample(round);
      if (round % 6 === 0) {
        log(`${(round / 6).toFixed(0)} min, load ${os.loadavg()[0].toFixed(2)}: ${candidates.map((c) => {
          const last = samples.get(c.name).at(-1);
          return `${c.name} anon ${mib(last.rssAnon).toFixed(2)} rss ${mib(last.vmRss).toFixed(2)} MiB`;
        }).join('; ')}`);
      }
    }
  } finally {
    signals?.stop();
    await Promise.all(runs.map((run) => run.kill()));
    churn.remove();
  }
  const byCandidate = {};
  for (const c of candidates) {
    const list = samples.get(c.name);
    byCandidate[c.name] = {
      rssAnon: trend(list, 'rssAnon', options.warmUpMs), vmRss: trend(list, 'vmRss', options.warmUpMs),
      rssFile: trend(list, 'rssFile', options.warmUpMs),
      threads: [Math.min(...list.map((s) => s.threads)), Math.max(...list.map((s) => s.threads))],
      child: childLines.get(c.name), churn: churnCounts(childLines.get(c.name)), queryErrors: queryErrors.get(c.name),
    };
  }
  const loads = [...samples.values()][0].map((s) => s.load1);
  return {
    minutes: options.minutes, warmUpSeconds: options.warmUpMs / 1000, orphansPerSecond, signalsPerSecond, queries: options.load.has('queries'),
    signalsSent: signals?.sent() ?? 0,
    loadAverage: { mean: loads.reduce((a, b) => a + b, 0) / loads.length, max: Math.max(...loads) },
    byCandidate,
  };
}

export function formatSoak(result) {
  const f = (x, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : '—');
  const lines = [
    `${result.minutes} min: ${result.orphansPerSecond} orphans/s, ${result.signalsPerSecond} SIGUSR1/s, ` +
      `status + scrape ${result.queries ? 'every 10 s' : 'off'}; load average ${f(result.loadAverage.mean)} (max ${f(result.loadAverage.max)})`,
    `${'candidate'.padEnd(28)} ${'RssAnon start  rise  slope/min'.padEnd(34)} ${'VmRSS start  rise  slope/min'.padEnd(32)} RssFile slope/min  threads`,
  ];
  for (const [name, c] of Object.entries(result.byCandidate)) {
    const part = (t) => `${f(t.start).padStart(6)} ${f(t.warmUpRise).padStart(6)} ${f(t.slopePerMinute, 3).padStart(8)}`;
    lines.push(`${name.padEnd(28)} ${part(c.rssAnon).padEnd(34)} ${part(c.vmRss).padEnd(32)} ${f(c.rssFile.slopePerMinute, 3).padStart(8)}  ` +
      `${c.threads[0]}-${c.threads[1]}${c.queryErrors ? `  (${c.queryErrors} failed queries)` : ''}`);
    lines.push(`${''.padEnd(28)} RssAnon means by sixth of the run: ${c.rssAnon.windowMeans.map((m) => f(m)).join(' ')}; ` +
      `slope over the second half ${f(c.rssAnon.secondHalfSlopePerMinute, 3)}/min`);
    lines.push(`${''.padEnd(28)} churn child: ${c.child || '(no report)'}`);
  }
  const warmUp = `${result.warmUpSeconds >= 60 ? `${result.warmUpSeconds / 60} min` : `${result.warmUpSeconds} s`}`;
  lines.push(`(MiB; rise: first sample to the one at ${warmUp}; slope: least squares from ${warmUp} on)`);
  return lines.join('\n');
}

async function main(args) {
  const options = parseArgs(args);
  requireBuilt();
  if (options.out) writeFileSync(options.out, '');
  const stop = () => {
    killAll();
    process.exit(130);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const result = await measureSoak(options);
  if (options.out) appendFileSync(options.out, `${JSON.stringify({ summary: result })}\n`);
  process.stdout.write(`${formatSoak(result)}\n`);
  process.exit(0);  // the line readers of the killed namespaces wait on timers of their own
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((error) => {
    killAll();
    process.stderr.write(`soak: ${error.stack ?? error}\n`);
    process.exit(1);
  });
}
