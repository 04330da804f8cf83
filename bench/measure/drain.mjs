#!/usr/bin/env node
// Drains side by side: failed requests and stop time of one backend stopped behind
// HAProxy, for fixed drain delays against --drain-quiet, over endpoint removal delays of 0.5, 1.5
// and 5 s, in one run. The rig is the end-to-end test's (test/support/drain-scenario.ts), bundled
// here with esbuild: one set of parts for both.
//
//   npm run bench:drain            writes bench/DRAIN.md
//   node bench/measure/drain.mjs --no-write
import { buildSync } from 'esbuild';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const REMOVALS_S = [0.5, 1.5, 5];
const QUIET_S = 1;
const CAP_S = 10;
const DRAINS = [
  { name: 'no drain', sexton: [] },
  { name: 'fixed 1 s', sexton: ['--drain-delay', '1'] },
  { name: 'fixed 3 s', sexton: ['--drain-delay', '3'] },
  { name: 'fixed 6 s', sexton: ['--drain-delay', '6'] },
  { name: `--drain-quiet ${QUIET_S} (cap ${CAP_S} s)`, sexton: ['--drain-quiet', String(QUIET_S), '--drain-delay', String(CAP_S)] },
];
const RATE = 100;
const log = (message) => process.stderr.write(`bench drain: ${message}\n`);

/** The test's scenario as CommonJS beside its sources (its paths are relative to them). */
function loadScenario() {
  const outfile = path.join(ROOT, 'test', 'support', '.drain-scenario.bench.cjs');
  buildSync({ entryPoints: [path.join(ROOT, 'test', 'support', 'drain-scenario.ts')], bundle: true, platform: 'node', format: 'cjs', packages: 'external', outfile, logLevel: 'error' });
  try {
    return createRequire(import.meta.url)(outfile);
  } finally {
    rmSync(outfile, { force: true });
  }
}

async function main() {
  const { runScenario } = loadScenario();
  const rows = [];
  for (const removal of REMOVALS_S) {
    for (const drain of DRAINS) {
      const o = await runScenario({ sexton: drain.sexton, model: { kind: 'removal', afterMs: removal * 1000 }, rate: RATE });
      const last = /last traffic (\d+\.\d+)s after the stop signal/.exec(o.log)?.[1];
      const waited = /drain: forwarding the stop signal, waited (\d+\.\d+)s/.exec(o.log)?.[1];
      const row = { removal, drain: drain.name, sent: o.sent, failed: o.failed, stopS: o.stopMs / 1000, removedS: o.removedMs / 1000, maxGapMs: o.maxGapMs, last, waited };
      log(JSON.stringify(row));
      rows.push(row);
    }
  }
  const lines = [
    '# Drains side by side',
    '',
    `One of two backends behind HAProxy ${'2.6'} is stopped (TERM to its sexton, PID 1 of its own PID and network`,
    `namespaces) under ${RATE} requests/s, each a new connection; the balancer takes it out of rotation`,
    '(runtime API, as kube-proxy after the endpoint\'s deletion) this long after the stop signal. The app',
    'closes its listener at the forwarded TERM. Failed: requests that did not get a 200. After the removal:',
    'stop time less the moment HAProxy answered that the backend was out (removed at), the seconds a',
    'rollout waits past the moment waiting stopped helping.',
    'The last column is what sexton\'s own line at the forward says (seconds after the stop signal).',
    `Made by \`npm run bench:drain\` on ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(2)} at the end.`,
    '',
    '| removal after TERM | drain | failed / sent | removed at (s) | stop (s) | after the removal (s) | sexton: forwarded at, last traffic (s) |',
    '|---:|---|---:|---:|---:|---:|---|',
    ...rows.map((r) => `| ${r.removal} s | ${r.drain} | ${r.failed} / ${r.sent} | ${r.removedS.toFixed(2)} | ${r.stopS.toFixed(2)} | ${(r.stopS - r.removedS).toFixed(2)} | ${r.waited ? `${r.waited}, ${r.last ?? 'none'}` : ''} |`),
    '',
    `The load's longest pause in any run: ${Math.max(...rows.map((r) => r.maxGapMs))} ms (under the ${QUIET_S} s quiet window, or quiet would be misread).`,
    '',
  ];
  const text = lines.join('\n');
  process.stdout.write(text);
  if (!process.argv.includes('--no-write')) writeFileSync(path.join(ROOT, 'bench', 'DRAIN.md'), text);
}

main().catch((error) => {
  process.stderr.write(`bench drain: ${error.stack ?? error}\n`);
  process.exit(1);
});
