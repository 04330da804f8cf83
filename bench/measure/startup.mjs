// Startup: how much later `INIT /bin/true` ends than `/bin/true` alone, both run as PID 1 of a
// fresh namespace. Each round times every command once, in a rotating order, and subtracts that
// round's /bin/true: the namespace, unshare and spawnSync costs cancel, and noise hits both
// sides of each pair alike. Bare `node -e 0` is measured the same way: it is Node's floor; so is
// a Node init of sexton's addon alone, the floor of any init built on it.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeCgroup } from '../lib/cgroups.mjs';
import { msBetween, now, PID1_ENV, UNSHARE } from '../lib/pid1.mjs';
import { median, rotate } from '../lib/stats.mjs';
import { SEXTON } from '../lib/setup.mjs';

export const NODE_FLOOR = 'node -e 0';
/** sexton started by its command, dist/sexton.js run as a program: its sh line, then node. */
export const THROUGH_COMMAND = 'sexton by its `sexton` command (sh line)';
/**
 * The unmapping of file pages sexton does just before its spawn where its child's oom_score_adj
 * alone would not protect it (src/init/memory.ts): timed in a 32 MiB memory cgroup, which caps that step.
 */
export const RELEASE_STEP = "sexton's release before the spawn at a 32 MiB limit (in-process)";
const RELEASE_LIMIT_BYTES = 32 * 2 ** 20;
const RELEASE_LINE = /gave back ([\d.]+) MiB of file pages before the spawn in ([\d.]+) ms/;
/** A Node init of sexton's addon alone (addon-init.cjs): what sexton's start adds is its own. */
export const ADDON_FLOOR = 'node + the addon alone';
const ADDON_INIT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'addon-init.cjs');

function timeAsPid1(argv) {
  const started = now();
  const result = spawnSync(UNSHARE[0], [...UNSHARE.slice(1), ...argv], { stdio: ['ignore', 'ignore', 'pipe'], env: PID1_ENV });
  const ms = msBetween(started, now());
  if (result.status !== 0) throw new Error(`'${argv.join(' ')}' as PID 1 failed (${result.status ?? result.signal}): ${String(result.stderr).trim()}`);
  return ms;
}

export async function measureStartup(candidates, { rounds }) {
  const alone = { name: 'true', argv: ['/bin/true'] };
  const timed = [
    { name: NODE_FLOOR, argv: [process.execPath, '-e', '0'] },
    { name: ADDON_FLOOR, argv: [process.execPath, ADDON_INIT, '/bin/true'] },
    { name: THROUGH_COMMAND, argv: [SEXTON, '--', '/bin/true'] },
    ...candidates.map((c) => ({ name: c.name, argv: c.argv(['/bin/true']) })),
  ];
  const entries = [alone, ...timed];
  const extra = new Map(timed.map((e) => [e.name, []]));
  const aloneMs = [];
  for (const entry of entries) timeAsPid1(entry.argv);  // warm the page cache
  for (let round = 0; round < rounds; round++) {
    const ms = new Map();
    for (const entry of rotate(entries, round)) ms.set(entry.name, timeAsPid1(entry.argv));
    aloneMs.push(ms.get('true'));
    for (const entry of timed) extra.get(entry.name).push(ms.get(entry.name) - ms.get('true'));
  }
  // The release step's own cost, timed inside sexton (its -vv line): within this machine's
  // noise as a difference of start-ups, so measured where it runs. Without a small limit (the
  // start-ups above) sexton gives its pages back later, once its exporters listen.
  const release = [];
  const cgroup = makeCgroup('memory', 'release');
  try {
    cgroup.limitMemory(RELEASE_LIMIT_BYTES);
    for (let round = 0; round < rounds; round++) {
      const argv = [...cgroup.join, ...UNSHARE, process.execPath, SEXTON, '-vv', '--', '/bin/true'];
      const result = spawnSync(argv[0], argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'], env: PID1_ENV });
      const m = RELEASE_LINE.exec(String(result.stderr));
      if (!m) throw new Error(`no release line from sexton -vv at a 32 MiB limit: ${String(result.stderr).trim().slice(-300)}`);
      release.push({ mib: Number(m[1]), ms: Number(m[2]) });
    }
  } finally {
    await cgroup.remove();
  }
  return {
    rounds,
    throughCommandMs: median(extra.get(THROUGH_COMMAND)),
    releaseMs: median(release.map((r) => r.ms)),
    releasedMiB: median(release.map((r) => r.mib)),
    trueMs: median(aloneMs),
    floorMs: median(extra.get(NODE_FLOOR)),
    addonFloorMs: median(extra.get(ADDON_FLOOR)),
    ms: Object.fromEntries(candidates.map((c) => [c.name, median(extra.get(c.name))])),
  };
}
