#!/usr/bin/env node
// sexton's benchmark against tini, tini-static, dumb-init and catatonit.
//
//   npm run bench                    full run; writes bench/RESULTS.md; exits 1 on a budget MISS
//   node bench/run.mjs --quick       under a minute, fewer rounds; MISSes are printed, not fatal
//   node bench/run.mjs --no-write    do not write bench/RESULTS.md
//
// Any crash of the bench itself exits non-zero, in both modes. Every namespace the bench
// starts is SIGKILLed by pid when it ends, however it ends.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { killAll } from './lib/pid1.mjs';
import { candidates, compileBench, ensurePeers, machine, requireBuilt, ROOT, versions } from './lib/setup.mjs';
import { measureBurst } from './measure/burst.mjs';
import { measureExecCost } from './measure/exec-cost.mjs';
import { measureFlood } from './measure/flood.mjs';
import { measureIdle } from './measure/idle.mjs';
import { measureReportLoad } from './measure/report-load.mjs';
import { measureScan } from './measure/scan.mjs';
import { measureShutdown, nodeFloor } from './measure/shutdown.mjs';
import { measureSignals } from './measure/signals.mjs';
import { measureStartup } from './measure/startup.mjs';
import { measureStorm } from './measure/storm.mjs';
import { linesSection } from './report-lines.mjs';
import { budget, budgetText, resultsMarkdown, tables } from './report.mjs';

const RESULTS = path.join(ROOT, 'bench', 'RESULTS.md');

const SETTINGS = {
  full: {
    startup: { rounds: 40 },
    idle: { rounds: 3, windowMs: 5000 },
    signals: { blocks: 4, perBlock: 100 },
    flood: { rounds: 3, seconds: 5, rate: 10_000 },
    storm: { rounds: 5, size: 2000 },
    burst: { rounds: 5, size: 2000 },
    shutdown: { rounds: 20, stubbornRounds: 5, peerWaitMs: 3000 },
    scan: { processes: 5000, zombies: 100, rounds: 10 },
    execCost: { calls: 200 },
    reportLoad: { clients: 200, seconds: 10, afterS: 60 },
  },
  quick: {
    startup: { rounds: 8 },
    idle: { rounds: 1, windowMs: 1000 },
    signals: { blocks: 1, perBlock: 200 },
    flood: { rounds: 1, seconds: 2, rate: 10_000 },
    storm: { rounds: 1, size: 1000 },
    burst: { rounds: 1, size: 1000 },
    shutdown: { rounds: 5, stubbornRounds: 1, peerWaitMs: 1500 },
    scan: { processes: 5000, zombies: 100, rounds: 3 },
    execCost: { calls: 30 },
    reportLoad: { clients: 50, seconds: 2, afterS: 5 },
  },
};

/** The 1-minute load average: other tenants of the machine show up here. */
const loadAverage = () => os.loadavg()[0].toFixed(2);
const log = (message) => process.stderr.write(`bench: ${message}\n`);

function describeSettings(s) {
  return [
    `- startup: ${s.startup.rounds} rounds (plus one warm-up)`,
    `- memory and idle wake-ups: ${s.idle.rounds} round(s) of ${s.idle.windowMs / 1000} s, after 1 s of settling`,
    `- signals: ${s.signals.blocks} block(s) of ${s.signals.perBlock} per init and condition`,
    `- signal flood: ${s.flood.rounds} round(s) of ${s.flood.seconds} s at ${s.flood.rate} SIGUSR1/s`,
    `- orphan storm: ${s.storm.rounds} round(s) of ${s.storm.size} orphans`,
    `- burst drain: ${s.burst.rounds} round(s) of ${s.burst.size} orphans, each way`,
    `- TERM → exit: ${s.shutdown.rounds} rounds; stubborn child: ${s.shutdown.stubbornRounds} round(s) for sexton, peers watched for ${s.shutdown.peerWaitMs / 1000} s`,
    `- sexton scan: ${s.scan.rounds} rounds on a node with ${s.scan.processes} extra processes (${s.scan.zombies} of them zombies)`,
    `- exec probes: ${s.execCost.calls} calls of each command`,
    `- report load: ${s.reportLoad.clients} clients for ${s.reportLoad.seconds} s, then ${s.reportLoad.afterS} s quiet`,
  ].join('\n');
}

/** RESULTS.md is all generated; the hand-written notes are bench/NOTES.md, which it points to. */
const NOTES_LINK = '\nWhat these figures mean, and how they were measured: [NOTES.md](NOTES.md), written by hand.\n';

/** How this run was started, for RESULTS.md. */
function commandLine(args) {
  if (process.env.npm_lifecycle_event === 'bench') return ['npm run bench', ...(args.length ? ['--', ...args] : [])].join(' ');
  return ['node bench/run.mjs', ...args].join(' ');
}

async function main(args) {
  const unknown = args.filter((arg) => !['--quick', '--no-write'].includes(arg));
  if (unknown.length > 0) throw new Error(`unknown argument(s) ${unknown.join(' ')}; usage: node bench/run.mjs [--quick] [--no-write]`);
  const quick = args.includes('--quick');
  const write = !quick && !args.includes('--no-write');
  const settings = SETTINGS[quick ? 'quick' : 'full'];

  requireBuilt();
  ensurePeers(log);
  const child = compileBench('child');
  process.on('exit', child.remove);
  const inits = candidates();
  const names = inits.map((c) => c.name);

  const started = Date.now();
  const loadBefore = loadAverage();
  const step = async (what, measure) => {
    log(`${what}…`);
    return measure();
  };
  const results = {
    startup: await step('startup', () => measureStartup(inits, settings.startup)),
    // With a bare node of the same binary that holds one child: Node's own floor at rest.
    idle: await step('memory and idle wake-ups', () => measureIdle([...inits, nodeFloor], settings.idle)),
    signals: await step('signal latency, idle and under an orphan storm', () => measureSignals(inits, child.binary, settings.signals)),
    flood: await step('CPU under a signal flood', () => measureFlood(inits, settings.flood)),
    storm: await step('orphan storm', () => measureStorm(inits, settings.storm)),
    burst: await step('burst drain', () => measureBurst(inits, child.binary, settings.burst)),
    shutdown: await step('TERM → exit', () => measureShutdown(inits, child.binary, settings.shutdown)),
    scan: await step(`sexton scan of a node with ${settings.scan.processes} processes`, () => measureScan(settings.scan)),
    execCost: await step('exec probes: sexton probe and status against timeout(1) and socat', () => measureExecCost(settings.execCost)),
    reportLoad: await step(`report load: ${settings.reportLoad.clients} clients, a connection per request`, () => measureReportLoad(settings.reportLoad)),
  };
  log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s; load average ${loadBefore} before, ${loadAverage()} after`);

  const t = tables(results, names);
  const lines = budget(results);
  process.stdout.write(`\n${t.memoryTable}\n\n${t.signalTable}\n\n${t.floodTable}\n\n${t.shutdownTable}\n\n${t.scanTable}\n\n${t.execCostTable}\n\n${t.reportLoadTable}\n\n${budgetText(lines)}\n`);

  if (write) {
    const meta = {
      date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      command: commandLine(args),
      machine: { ...machine(), load: `${loadBefore} before, ${loadAverage()} after` },
      versions: versions(),
      settings: describeSettings(settings),
    };
    // The floors per Node line are another run's (npm run bench:lines): kept as they are.
    const perLine = existsSync(RESULTS) ? linesSection(readFileSync(RESULTS, 'utf8')) : '';
    writeFileSync(RESULTS, resultsMarkdown(meta, results, lines, names) + NOTES_LINK + (perLine ? `\n${perLine}\n` : ''));
    log(`wrote ${path.relative(process.cwd(), RESULTS)}`);
  }
  const misses = lines.filter((l) => !l.pass).length;
  if (misses > 0) log(`${misses} budget MISS(es)${quick ? ' (not fatal with --quick)' : ''}`);
  return quick || misses === 0 ? 0 : 1;
}

process.on('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => process.exit(130));

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    log(`crashed: ${error.stack ?? error}`);
    process.exit(2);
  },
);
