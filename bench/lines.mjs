#!/usr/bin/env node
// The floors of sexton on each supported Node line, side by side with a bare node of the same
// line and with tini, in one run: bench/measure/line.mjs under each line's node (installed by
// .ci/setup into .ci/node-lines). Writes the "Floors per Node line" section of bench/RESULTS.md
// (kept there when `npm run bench` rewrites the rest).
//
//   npm run bench:lines               full run (about 3 minutes a line on an idle machine)
//   node bench/lines.mjs --quick      fewer rounds; prints the tables, writes nothing
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ROOT } from './lib/setup.mjs';
import { budgetText, RSS_ANON_MIB, RSS_ANON_OVER_NODE_MIB, STARTUP_OVER_NODE_MS } from './report.mjs';
import { LINES_BEGIN, LINES_END, withLinesSection } from './report-lines.mjs';

const PINS = path.join(ROOT, '.ci', 'node-lines', 'linux-x64');
const RESULTS = path.join(ROOT, 'bench', 'RESULTS.md');

function lines() {
  const manifest = JSON.parse(readFileSync(path.join(PINS, 'package.json'), 'utf8'));
  return Object.keys(manifest.dependencies).map((name) => ({ line: name.replace(/^node-/, ''), node: path.join(PINS, 'node_modules', name, 'bin', 'node') }));
}

function train(node, env) {
  const run = spawnSync(node, [path.join(ROOT, 'dist', 'sexton.js'), 'code-cache'], { stdio: ['ignore', 'ignore', 'inherit'], env });
  if (run.status !== 0) throw new Error(`training the code cache with ${node} ended with ${run.status ?? run.signal}`);
}

const kib = (v) => (v / 1024).toFixed(1);
const ms = (v) => (v === undefined ? '-' : v.toFixed(1));

function lineTable(result) {
  const { sexton, node, tini } = result.rows;
  return [
    `### Node ${result.node}`,
    '',
    `| | sexton | node (bare, one child) | tini |`,
    '|---|---|---|---|',
    `| start-up over \`/bin/true\`, ms (node: \`node -e 0\`) | ${ms(sexton.startupMs)} (${ms(sexton.startupMs - node.startupMs)} over node -e 0) | ${ms(node.startupMs)} | ${ms(tini.startupMs)} |`,
    `| RssAnon, MiB | ${kib(sexton.rssAnonKiB)} | ${kib(node.rssAnonKiB)} | ${kib(tini.rssAnonKiB)} |`,
    `| memory cgroup charge, MiB | ${kib(sexton.chargeKiB)} | ${kib(node.chargeKiB)} | ${kib(tini.chargeKiB)} |`,
    `| TERM → exit, ms | ${ms(sexton.termMs)} | ${ms(node.termMs)} | ${ms(tini.termMs)} |`,
    `| idle wake-ups in ${result.idleWindowMs / 1000} s | ${sexton.wakeups} | ${node.wakeups} | ${tini.wakeups} |`,
    '',
    '```',
    budgetText(lineBudget(result.rows)),
    '```',
  ].join('\n');
}

/** The main bench's start-up and rest budget lines (bench/report.mjs), for one line. */
function lineBudget({ sexton, node }) {
  const over = sexton.startupMs - node.startupMs;
  return [
    { pass: over <= STARTUP_OVER_NODE_MS, what: `startup ≤ node -e 0 + ${STARTUP_OVER_NODE_MS} ms`, detail: `${ms(over)} ms over` },
    { pass: sexton.rssAnonKiB <= RSS_ANON_MIB * 1024, what: `RssAnon ≤ ${RSS_ANON_MIB} MiB`,
      detail: `${kib(sexton.rssAnonKiB)} MiB (the bare node ${kib(node.rssAnonKiB)})` },
    { pass: sexton.rssAnonKiB <= node.rssAnonKiB + RSS_ANON_OVER_NODE_MIB * 1024, what: `RssAnon ≤ the bare node + ${RSS_ANON_OVER_NODE_MIB} MiB`,
      detail: `${kib(sexton.rssAnonKiB - node.rssAnonKiB)} MiB over` },
    { pass: sexton.wakeups === 0, what: 'idle wake-ups 0', detail: `${sexton.wakeups}` },
  ];
}

function main(args) {
  const quick = args.includes('--quick');
  const results = [];
  for (const { line, node } of lines()) {
    if (!existsSync(node)) throw new Error(`no Node ${line} at ${node}: run bash .ci/setup`);
    process.stderr.write(`bench lines: Node ${line}…\n`);
    const env = { ...process.env, PATH: `${path.dirname(node)}:${process.env.PATH}` };
    // The code cache is trained for one node binary and refused by any other, as an install
    // trains it for the node it runs on: each line is measured with its own.
    train(node, env);
    const run = spawnSync(node, [path.join(ROOT, 'bench', 'measure', 'line.mjs'), ...(quick ? ['--quick'] : [])], {
      stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', env,
    });
    if (run.status !== 0) throw new Error(`Node ${line}'s run ended with ${run.status ?? run.signal}`);
    results.push(JSON.parse(run.stdout.trim().split('\n').at(-1)));
  }
  train(process.execPath, process.env);  // the cache back to the node that ran the bench
  const section = [
    LINES_BEGIN,
    '## Floors per Node line',
    '',
    `\`npm run bench:lines\`, ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}: each line's sexton against a bare node of that line`,
    '(`node -e 0` for the start-up; a node that holds one child and forwards TERM for memory, wake-ups and',
    'the stop) and against tini, one run, medians. Start-up is over `/bin/true` as PID 1.',
    '',
    ...results.flatMap((r) => [lineTable(r), '']),
    LINES_END,
  ].join('\n');
  process.stdout.write(`${section}\n`);
  if (!quick) {
    writeFileSync(RESULTS, withLinesSection(existsSync(RESULTS) ? readFileSync(RESULTS, 'utf8') : '', section));
    process.stderr.write(`bench lines: wrote ${path.relative(process.cwd(), RESULTS)}\n`);
  }
}

main(process.argv.slice(2));
