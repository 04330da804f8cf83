// The floors: sexton's task count (and what --v8-pool-size does to it),
// the least room in a pids cgroup in which `node -e 0` and `sexton -- true` run, and the least
// RLIMIT_NOFILE in which they run (sexton with and without every exporter).
//
//   node bench/measure/floors.mjs      prints markdown; needs root (cgroups, namespaces)
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { childrenOf, sleep, until } from '../lib/pid1.mjs';
import { requireBuilt, SEXTON } from '../lib/setup.mjs';

const NODE = process.execPath;
const POOLS = [undefined, 0, 1, 2];

function pidsRoot() {
  try {
    if (readFileSync('/sys/fs/cgroup/cgroup.controllers', 'utf8').split(/\s+/).includes('pids')) return '/sys/fs/cgroup';
  } catch {
    // v1
  }
  return '/sys/fs/cgroup/pids';
}

/** Threads of `sexton -- sleep 5` once its child runs, started with these node options. */
async function sextonTasks(nodeOptions) {
  const proc = spawn(NODE, [...nodeOptions, SEXTON, '--', 'sleep', '5'], { stdio: 'ignore' });
  try {
    await until(() => childrenOf(proc.pid).length > 0, 5000, 'the child');
    await sleep(200);  // let V8 start whatever it starts lazily
    return readdirSync(`/proc/${proc.pid}/task`).length;
  } finally {
    proc.kill('SIGKILL');
  }
}

/** Outcome of argv in a pids cgroup with room for k tasks: 'ok', 'exit N: first line', or 'hangs'. */
function inRoomFor(k, argv) {
  const dir = path.join(pidsRoot(), `sexton-bench-floor-${process.pid}-${k}`);
  mkdirSync(dir);
  try {
    writeFileSync(path.join(dir, 'pids.max'), String(k));
    const result = spawnSync('/bin/sh', ['-c', `echo $$ > ${dir}/cgroup.procs && exec "$@"`, 'sh', ...argv], {
      stdio: ['ignore', 'ignore', 'pipe'], timeout: 3000, killSignal: 'SIGKILL',
    });
    const first = String(result.stderr).split('\n')[0].slice(0, 100);
    if (result.error?.code === 'ETIMEDOUT') return 'hangs';
    if (result.status === 0 && first === '') return 'ok';
    return `${result.signal ?? `exit ${result.status}`}${first ? `: ${first}` : ''}`;
  } finally {
    for (let i = 0; i < 50; i++) {
      try {
        rmdirSync(dir);
        break;
      } catch {
        spawnSync('sleep', ['0.1']);
      }
    }
  }
}

function withNofile(n, argv) {
  const result = spawnSync('prlimit', [`--nofile=${n}`, ...argv], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 });
  return result.status === 0 && String(result.stderr) === '';
}

function leastNofile(argv) {
  for (let n = 8; n <= 64; n++) if (withNofile(n, argv)) return n;
  return undefined;
}

export async function measureFloors() {
  const tasks = {};
  for (const pool of POOLS) tasks[pool === undefined ? 'default' : `--v8-pool-size=${pool}`] = await sextonTasks(pool === undefined ? [] : [`--v8-pool-size=${pool}`]);
  const rooms = [];
  for (let k = 1; k <= 10; k++) {
    rooms.push({
      k,
      node: inRoomFor(k, [NODE, '-e', '0']),
      sexton: inRoomFor(k, [NODE, SEXTON, '--', 'true']),
      pool1: inRoomFor(k, [NODE, '--v8-pool-size=1', SEXTON, '--', 'true']),
    });
  }
  const all = ['--status-socket', '/tmp/sexton-bench-floor.sock', '--metrics', '127.0.0.1:0', '--stats-file', '/tmp/sexton-bench-floor.json'];
  const nofile = {
    node: leastNofile([NODE, '-e', '0']),
    sexton: leastNofile([NODE, SEXTON, '--', 'true']),
    sextonAllExporters: leastNofile([NODE, SEXTON, ...all, '--', 'true']),
  };
  return { tasks, rooms, nofile };
}

export function floorsMarkdown(r) {
  return [
    `Threads of sexton once its child runs: ${Object.entries(r.tasks).map(([k, v]) => `${k} ${v}`).join(', ')}.`,
    '',
    '| room for k tasks | node -e 0 | sexton -- true | node --v8-pool-size=1 sexton -- true |',
    '|---|---|---|---|',
    ...r.rooms.map((row) => `| ${row.k} | ${row.node} | ${row.sexton} | ${row.pool1} |`),
    '',
    `Least RLIMIT_NOFILE (stdio only inherited): node -e 0 ${r.nofile.node}, sexton -- true ${r.nofile.sexton}, with every exporter ${r.nofile.sextonAllExporters}.`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  requireBuilt();
  measureFloors().then(
    (r) => process.stdout.write(`${floorsMarkdown(r)}\n`),
    (error) => {
      process.stderr.write(`floors: ${error.stack ?? error}\n`);
      process.exit(2);
    },
  );
}
