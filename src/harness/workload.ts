// The workloads the harness runs as a container's main program: a Node app that leaks in the
// ways real pods do. It is an ordinary Node program (not the init), so child_process is fine:
// libuv waits for the shells it spawns, never for their orphans, exactly like a real app.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

function report(event: Record<string, unknown>): void {
  try {
    writeSync(1, `${JSON.stringify(event)}\n`);
  } catch {
    // the harness stopped listening
  }
}

/** The shell's status when one of its forks failed (the pids limit is full). */
const FORK_FAILED = 11;

/**
 * One shell that starts `count` background processes and exits without waiting: orphans. At a
 * full pids limit the shell's own forks fail far more often than Node's spawn of the shell (each
 * shell frees its pid when it ends), so both count as a failed fork.
 */
function orphanBatch(count: number): Promise<'ok' | 'eagain'> {
  return new Promise((resolve) => {
    const script = `i=0; while [ $i -lt ${count} ]; do (true &) || exit ${FORK_FAILED}; i=$((i+1)); done`;
    const child = spawn('/bin/sh', ['-c', script], { stdio: 'ignore' });
    child.on('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'EAGAIN' ? 'eagain' : 'ok'));
    child.on('exit', (code) => resolve(code === FORK_FAILED ? 'eagain' : 'ok'));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const stayAlive = () => setInterval(() => undefined, 1 << 30);

async function orphans(count: number): Promise<void> {
  const batch = 20;
  for (let made = 0; made < count; made += batch) {
    await orphanBatch(Math.min(batch, count - made));
    await sleep(5);
  }
  report({ event: 'orphans-created', count });
  stayAlive();
}

async function storm(count: number): Promise<void> {
  const started = Date.now();
  const batches = [];
  for (let made = 0; made < count; made += 100) batches.push(orphanBatch(Math.min(100, count - made)));
  await Promise.all(batches);
  report({ event: 'storm-done', count, ms: Date.now() - started });
  stayAlive();
}

/** Forks short-lived orphans for `seconds`; under a pid limit, zombies that nobody reaps fill it. */
/** Orphans enough to pass the harness's limit of 200 twice over, whatever the machine's speed. */
const EXHAUSTION_ORPHANS = 400;
/** A loaded machine forks slowly: the run goes past its seconds to this, but never further. */
const EXHAUSTION_MAX_MS = 20_000;

async function pidExhaustion(seconds: number): Promise<void> {
  const started = Date.now();
  const until = started + seconds * 1000;
  let created = 0;
  let eagain = 0;
  // At least `seconds`, and until a fork failed or the orphans passed the limit twice over: at a
  // load of 30 on 2 cores, 3 s made only 120 and proved nothing either way.
  while (
    Date.now() < until ||
    (eagain === 0 && created < EXHAUSTION_ORPHANS && Date.now() - started < EXHAUSTION_MAX_MS)
  ) {
    const results = await Promise.all([orphanBatch(10), orphanBatch(10)]);
    for (const result of results) {
      if (result === 'eagain') eagain++;
      else created += 10;
    }
    await sleep(10);
  }
  report({ event: 'pid-exhaustion-done', created, eagain });
  stayAlive();
}

/**
 * The zombie pod: parents named zombie-1..zombie-10 (a `sleep` run through a symlink of that
 * name) each start a child that exits at once and never wait for it, and ignore SIGTERM.
 */
async function zombiePod(parents: number): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sexton-zombie-pod-'));
  const sleepBinary = ['/bin/sleep', '/usr/bin/sleep'].find((p) => existsSync(p)) ?? '/bin/sleep';
  const pids: number[] = [];
  for (let n = 1; n <= parents; n++) {
    const name = path.join(dir, `zombie-${n}`);
    symlinkSync(sleepBinary, name);
    const child = spawn('/bin/sh', ['-c', `trap "" TERM; true & exec "$0" 100000`, name], { stdio: 'ignore' });
    pids.push(child.pid as number);
  }
  // The links are only needed until each parent has exec'd its name.
  for (let tries = 0; tries < 200; tries++) {
    const named = pids.every((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('zombie-');
      } catch {
        return false;
      }
    });
    if (named) break;
    await sleep(10);
  }
  rmSync(dir, { recursive: true, force: true });
  report({ event: 'zombie-pod-started', parents });
  stayAlive();
}

const [name, arg] = process.argv.slice(2);
const n = arg === undefined ? undefined : Number(arg);
const workloads: Record<string, () => Promise<void>> = {
  orphans: () => orphans(n ?? 200),
  storm: () => storm(n ?? 2000),
  'pid-exhaustion': () => pidExhaustion(n ?? 3),
  'zombie-pod': () => zombiePod(n ?? 10),
};
const run = workloads[name];
if (!run) {
  writeSync(2, `workload: unknown workload '${name}' (${Object.keys(workloads).join(', ')})\n`);
  process.exit(2);
}
run();
