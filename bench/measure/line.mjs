// The floors of one Node line, run by that line's node (bench/lines.mjs starts it once per line):
// start-up over `node -e 0`, RssAnon, memory charge and idle wake-ups, and TERM → exit, for
// sexton against a bare node of the same binary and against tini. Prints one JSON object.
//
//   .ci/node-lines/linux-x64/node_modules/node-26/bin/node bench/measure/line.mjs [--quick]
import { fileURLToPath } from 'node:url';
import { killAll } from '../lib/pid1.mjs';
import { candidates, compileBench, ensurePeers, requireBuilt } from '../lib/setup.mjs';
import { measureIdle } from './idle.mjs';
import { measureShutdown, nodeFloor, NODE_TERM_FLOOR } from './shutdown.mjs';
import { measureStartup } from './startup.mjs';

export const LINE_SETTINGS = {
  full: { startup: { rounds: 40 }, idle: { rounds: 3, windowMs: 5000 }, shutdown: { rounds: 20, stubbornRounds: 1, peerWaitMs: 1000 } },
  quick: { startup: { rounds: 8 }, idle: { rounds: 1, windowMs: 1000 }, shutdown: { rounds: 5, stubbornRounds: 1, peerWaitMs: 1000 } },
};

/** sexton and tini; the node floor of idle memory is the shutdown's bare node that holds a child. */
function lineCandidates() {
  return candidates().filter((c) => c.name === 'sexton' || c.name === 'tini');
}

export async function measureLine(settings) {
  const inits = lineCandidates();
  const child = compileBench('child');
  try {
    const startup = await measureStartup(inits, settings.startup);
    const idle = await measureIdle([...inits, nodeFloor], settings.idle);
    const shutdown = await measureShutdown(inits, child.binary, settings.shutdown);
    const row = (name) => ({
      startupMs: name === NODE_TERM_FLOOR ? startup.floorMs : startup.ms[name],
      rssAnonKiB: idle.byCandidate[name].memory.rssAnon,
      chargeKiB: idle.byCandidate[name].memory.charge,
      wakeups: idle.byCandidate[name].wakeups,
      termMs: name === NODE_TERM_FLOOR ? shutdown.floorMs : shutdown.termMs[name],
    });
    return {
      node: process.version,
      idleWindowMs: settings.idle.windowMs,
      rows: { sexton: row('sexton'), node: row(NODE_TERM_FLOOR), tini: row('tini') },
    };
  } finally {
    child.remove();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.on('exit', killAll);
  requireBuilt();
  ensurePeers((message) => process.stderr.write(`bench line: ${message}\n`));
  measureLine(LINE_SETTINGS[process.argv.includes('--quick') ? 'quick' : 'full']).then(
    (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
    (error) => {
      process.stderr.write(`bench line: ${error.stack ?? error}\n`);
      process.exit(2);
    },
  );
}
