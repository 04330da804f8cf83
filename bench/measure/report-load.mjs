#!/usr/bin/env node
// Reports under load: 200 clients at once for 10 s, half asking the status socket,
// half scraping /metrics, each a new connection per request, back to back. Meanwhile sexton's
// child makes orphans (bench/churn.c, 100/s) and the bench sends it SIGUSR1 100 times a second.
// Measured, per candidate (this build; --baseline another build's dist/sexton.js):
//   - sexton's CPU over the 10 s (utime + stime from /proc, as a share of one core)
//   - answers per second and their latency (p50, p99)
//   - RssAnon: idle before, peak during, and a minute after the load
//   - reaping: the most zombies waiting for PID 1 at once (sampled every 20 ms), orphans reaped
//   - forwarding: SIGUSR1 sent against SIGUSR1 forwarded
//   - the grace period: TERM to a child that ignores it, --grace 2, in the middle of the load
//
//   node bench/measure/report-load.mjs [--baseline JS] [--seconds S] [--clients N] [--after S]
// `npm run bench` runs the load alone (measureReportLoad), with its budget lines.
//
// Every namespace is SIGKILLed by pid when it ends, however it ends.
import { readFileSync, statSync } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { childrenOf, killAll, sleep, startPid1 } from '../lib/pid1.mjs';
import { memoryOf } from '../lib/procfs.mjs';
import { freePort } from '../lib/net.mjs';
import { compileBench, requireBuilt, SEXTON } from '../lib/setup.mjs';

const log = (message) => process.stderr.write(`report-load: ${message}\n`);

function parseArgs(args) {
  const out = { baseline: undefined, seconds: 10, clients: 200, afterS: 60 };
  for (let i = 0; i < args.length; i++) {
    const value = () => args[++i];
    if (args[i] === '--baseline') out.baseline = path.resolve(value());
    else if (args[i] === '--seconds') out.seconds = Number(value());
    else if (args[i] === '--clients') out.clients = Number(value());
    else if (args[i] === '--after') out.afterS = Number(value());
    else throw new Error(`unknown argument ${args[i]}; see the head of bench/measure/report-load.mjs`);
  }
  return out;
}



const cpuSeconds = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

/** One request on a new connection; resolves with its latency in ms, or -1 if it failed. */
function once(connect, request) {
  const started = process.hrtime.bigint();
  return new Promise((resolve) => {
    const socket = connect();
    let bytes = 0;
    socket.setTimeout(5000, () => socket.destroy());
    socket.on('connect', () => request && socket.write(request));
    socket.on('data', (chunk) => (bytes += chunk.length));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(bytes > 0 ? Number(process.hrtime.bigint() - started) / 1e6 : -1));
  });
}

/** `clients` loops, half on the status socket, half on /metrics, until `stopAt`. */
async function load(clients, statusPath, port, stopAt) {
  const latencies = [];
  let failed = 0;
  const loop = async (connect, request) => {
    while (Date.now() < stopAt) {
      const ms = await once(connect, request);
      if (ms < 0) failed++;
      else latencies.push(ms);
    }
  };
  const http = 'GET /metrics HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n';
  await Promise.all(Array.from({ length: clients }, (_, i) => (i % 2 === 0
    ? loop(() => net.connect(statusPath))
    : loop(() => net.connect(port, '127.0.0.1'), http))));
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return { answers: latencies.length, failed, p50: at(0.5), p99: at(0.99) };
}

function zombiesOf(pid1) {
  let n = 0;
  for (const child of childrenOf(pid1)) {
    try {
      if (readFileSync(`/proc/${child}/stat`, 'utf8').split(') ')[1][0] === 'Z') n++;
    } catch {
      // reaped meanwhile
    }
  }
  return n;
}

function metricValue(text, name) {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : NaN;
}

async function scrapeOnce(port) {
  let text = '';
  await new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write('GET /metrics HTTP/1.1\r\nHost: b\r\nConnection: close\r\n\r\n'));
    socket.on('data', (c) => (text += c));
    socket.on('close', resolve);
    socket.on('error', resolve);
  });
  return text;
}

async function measure(name, script, options, churn) {
  const port = await freePort();
  const run = await startPid1([process.execPath, script, '--metrics', `127.0.0.1:${port}`, '--grace', '2', '--', churn.binary, '100'], { lines: true });
  try {
    await run.expectLine('ready', 10_000);
    const statusPath = `\0sexton-status.${statSync(`/proc/${run.pid1}/ns/pid`).ino}`;
    await sleep(12_000);  // past the start-up release and V8's memory reducer
    const idle = memoryOf(run.pid1).rssAnon;
    const cpu0 = cpuSeconds(run.pid1);
    const stopAt = Date.now() + options.seconds * 1000;
    let peak = idle;
    let maxZombies = 0;
    let sent = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, memoryOf(run.pid1).rssAnon);
      maxZombies = Math.max(maxZombies, zombiesOf(run.pid1));
    }, 20);
    const sender = setInterval(() => {
      run.signal('SIGUSR1');
      sent++;
    }, 10);
    const result = await load(options.clients, statusPath, port, stopAt);
    clearInterval(sender);
    clearInterval(sampler);
    const cpu = (cpuSeconds(run.pid1) - cpu0) / options.seconds;
    await sleep(200);
    const text = await scrapeOnce(port);
    const forwarded = metricValue(text.split('\r\n\r\n')[1] ?? '', 'sexton_signals_forwarded_total{signal="USR1"}');
    const orphans = metricValue(text.split('\r\n\r\n')[1] ?? '', 'sexton_reaped_total{kind="orphan"}');
    await sleep(options.afterS * 1000);
    const after = memoryOf(run.pid1).rssAnon;
    return {
      name, ...result, cpuShare: cpu, idleKiB: idle, peakKiB: peak, afterKiB: after, maxZombies, sent, forwarded, orphans,
      rate: result.answers / options.seconds,
    };
  } finally {
    await run.kill();
  }
}

/** TERM to a child that ignores it, in the middle of the load: how long to the exit (grace 2 s). */
async function graceUnderLoad(script, options, churn, loaded) {
  const port = await freePort();
  // SIG_IGN survives exec: churn ignores TERM, so only the grace period's SIGKILL ends it.
  const run = await startPid1([process.execPath, script, '--metrics', `127.0.0.1:${port}`, '--grace', '2', '--',
    '/bin/sh', '-c', `trap '' TERM; exec ${churn.binary} 100`], { lines: true });
  try {
    await run.expectLine('ready', 10_000);
    const statusPath = `\0sexton-status.${statSync(`/proc/${run.pid1}/ns/pid`).ino}`;
    await sleep(1000);
    const stopAt = Date.now() + 6000;
    const loading = loaded ? load(options.clients, statusPath, port, stopAt) : sleep(0);
    await sleep(2000);
    const termAt = process.hrtime.bigint();
    run.signal('SIGTERM');
    const exit = await Promise.race([run.exited, sleep(15_000).then(() => undefined)]);
    await loading;
    return exit ? Number(exit.at - termAt) / 1e6 : Infinity;
  } finally {
    await run.kill();
  }
}

const mib = (kib) => (kib / 1024).toFixed(2);

/** The load alone, for `npm run bench` (bench/run.mjs): this build's sexton. */
export async function measureReportLoad(options) {
  const churn = compileBench('churn');
  try {
    return { ...(await measure('sexton', SEXTON, options, churn)), clients: options.clients };
  } finally {
    churn.remove();
  }
}

async function main() {
  requireBuilt();
  const options = parseArgs(process.argv.slice(2));
  const churn = compileBench('churn');
  try {
    const candidates = [['sexton', SEXTON], ...(options.baseline ? [['sexton (baseline)', options.baseline]] : [])];
    for (const [name, script] of candidates) {
      log(`${name}: ${options.clients} clients for ${options.seconds} s, then ${options.afterS} s quiet`);
      const r = await measure(name, script, options, churn);
      const idleGrace = await graceUnderLoad(script, options, churn, false);
      const loadedGrace = await graceUnderLoad(script, options, churn, true);
      console.log([
        `${name}: CPU ${(r.cpuShare * 100).toFixed(1)}% of a core; ${r.rate.toFixed(0)} answers/s (${r.failed} failed), p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms`,
        `  RssAnon idle ${mib(r.idleKiB)} MiB, peak ${mib(r.peakKiB)} MiB, ${options.afterS} s after ${mib(r.afterKiB)} MiB (${mib(r.afterKiB - r.idleKiB)} over idle)`,
        `  reaping: at most ${r.maxZombies} zombie(s) waiting for PID 1, ${r.orphans} orphans reaped; USR1 sent ${r.sent}, forwarded ${r.forwarded}`,
        `  grace 2 s, TERM to exit: ${idleGrace.toFixed(0)} ms idle, ${loadedGrace.toFixed(0)} ms under the load`,
      ].join('\n'));
    }
  } finally {
    churn.remove();
    killAll();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) main().catch((error) => {
  console.error(error);
  killAll();
  process.exit(1);
});
