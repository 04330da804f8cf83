// The wrapper matrix: one app (test/fixtures/wrapper-app) started through each of the wrappers a
// Node image puts between PID 1 and the app, under an init (or none), stopped as a runtime stops
// a container: TERM to PID 1, SIGKILL at the end of the grace period. Every wrapper is a pinned
// dev dependency; nothing is fetched while a case runs (no corepack, yarn 4 offline).
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { FIXTURES, ROOT, startPid1, SEXTON, until } from './pid1';

const APP = path.join(FIXTURES, 'wrapper-app');
const MODULES = path.join(ROOT, 'node_modules');

/** Each wrapper's executable, from the project's dev dependencies. */
const BINS: Record<string, string> = {
  npm: path.join(path.dirname(process.execPath), 'npm'),
  pnpm: path.join(MODULES, 'pnpm', 'bin', 'pnpm.cjs'),
  yarn1: path.join(MODULES, 'yarn', 'bin', 'yarn.js'),
  yarn4: path.join(MODULES, 'yarn4', 'bin', 'yarn.js'),
  tsx: path.join(MODULES, 'tsx', 'dist', 'cli.mjs'),
  nodemon: path.join(MODULES, 'nodemon', 'bin', 'nodemon.js'),
};

export interface WrapperCase {
  name: string;
  /** The container's CMD, run in the app's directory; `yarn` is the case's yarn. */
  cmd: string[];
  /** Which yarn `yarn` is, for the two yarn cases. */
  yarn?: 'yarn1' | 'yarn4';
  /** The app also shuts down gracefully on SIGINT (the fix nodemon needs). */
  handlesInt?: boolean;
}

/** nodemon stops its app with SIGINT whatever it got itself: a TERM-only app is cut short. */
export const NODEMON_TERM_ONLY = 'nodemon app.js';

export const WRAPPER_CASES: WrapperCase[] = [
  { name: 'npm start', cmd: ['npm', 'start'] },
  { name: 'pnpm start', cmd: ['pnpm', 'start'] },
  { name: 'yarn start (yarn 1)', cmd: ['yarn', 'start'], yarn: 'yarn1' },
  { name: 'yarn start (yarn 4)', cmd: ['yarn', 'start'], yarn: 'yarn4' },
  { name: 'node --watch app.js', cmd: ['node', '--watch', 'app.js'] },
  { name: 'tsx watch app.js', cmd: ['tsx', 'watch', 'app.js'] },
  { name: 'nodemon app.js', cmd: ['nodemon', 'app.js'] },
  { name: 'nodemon app.js (app handles INT too)', cmd: ['nodemon', 'app.js'], handlesInt: true },
  { name: "sh -c 'node app.js'", cmd: ['sh', '-c', 'node app.js'] },
  { name: 'node app.js', cmd: ['node', 'app.js'] },
];

export interface Init {
  name: string;
  /** argv before the CMD. */
  argv: string[];
}

export const SEXTON_INIT: Init = { name: 'sexton', argv: [process.execPath, SEXTON, '--'] };
export const OTHER_INITS: Init[] = [
  { name: 'tini', argv: ['/usr/bin/tini', '--'] },
  { name: 'tini -g', argv: ['/usr/bin/tini', '-g', '--'] },
  { name: 'dumb-init', argv: ['/usr/bin/dumb-init'] },
  { name: 'no init', argv: [] },
];

export interface CaseResult {
  wrapper: string;
  init: string;
  /** The app said it was ready in time (else: killed, and nothing else here means much). */
  started: boolean;
  /** The app finished its graceful shutdown (its marker is on disk). */
  marker: boolean;
  /** From TERM to PID 1's exit, or to the SIGKILL at the grace period's end. */
  stopMs: number;
  /** PID 1 was still there at the grace period's end and was SIGKILLed, as a runtime would. */
  killedAtGrace: boolean;
  exitCode: number | undefined;
  stderr: string;
}

/** A fresh copy of the app with a bin directory that names this case's wrappers. */
function prepare(c: WrapperCase): { dir: string; env: Record<string, string> } {
  const dir = mkdtempSync(path.join(tmpdir(), 'sexton-wrapper-'));
  cpSync(APP, dir, { recursive: true });
  const bin = path.join(dir, '.bin');
  mkdirSync(bin);
  const links: Record<string, string> = {
    node: process.execPath, npm: BINS.npm, pnpm: BINS.pnpm, tsx: BINS.tsx, nodemon: BINS.nodemon, yarn: BINS[c.yarn ?? 'yarn1'],
  };
  for (const [name, target] of Object.entries(links)) symlinkSync(target, path.join(bin, name));
  const env: Record<string, string> = {
    HOME: dir,
    PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`,
    WRAPPER_APP_DIR: dir,
    // Nothing may reach the network or ask: update checks, corepack, yarn's telemetry.
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    COREPACK_ENABLE_STRICT: '0',
    COREPACK_ENABLE_DOWNLOAD_PROMPT: '0',
    COREPACK_ENABLE_NETWORK: '0',
    YARN_ENABLE_NETWORK: '0',
    YARN_ENABLE_TELEMETRY: '0',
    NO_UPDATE_NOTIFIER: '1',
    CI: 'true',
  };
  // yarn 4 refuses yarn 1's settings, even from the environment.
  if (c.yarn === 'yarn1') Object.assign(env, { YARN_IGNORE_PATH: '1', YARN_DISABLE_SELF_UPDATE_CHECK: 'true' });
  if (c.handlesInt) env.WRAPPER_APP_SIGINT = '1';
  return { dir, env };
}

export interface RunCaseOptions {
  /** Seconds between TERM and SIGKILL, as a runtime's grace period. */
  graceSeconds: number;
  /** How long the app may take to say it is ready (wrappers start slowly on a busy machine). */
  readyTimeoutMs?: number;
}

/** Runs one case: start, wait for the app, TERM to PID 1, SIGKILL at the grace period's end. */
export async function runCase(c: WrapperCase, init: Init, options: RunCaseOptions): Promise<CaseResult> {
  const { dir, env } = prepare(c);
  try {
    // sh only changes directory and execs: PID 1 is the init (or the CMD itself).
    const argv = ['/bin/sh', '-c', 'cd "$0" && exec "$@"', dir, ...init.argv, ...c.cmd];
    const run = await startPid1(argv, { raw: true, env, timeoutMs: 60_000 });
    const ready = await until(() => existsSync(path.join(dir, 'ready')), options.readyTimeoutMs ?? 30_000).catch(() => false);
    if (!ready) {
      run.signal('SIGKILL');
      const result = await run.done();
      const failed = { marker: false, stopMs: 0, killedAtGrace: false, exitCode: result.exitCode, stderr: `${result.stdout}\n${result.stderr}` };
      return { wrapper: c.name, init: init.name, started: false, ...failed };
    }
    const sent = Date.now();
    run.signal('SIGTERM');
    let killedAtGrace = false;
    const kill = setTimeout(() => {
      killedAtGrace = true;
      run.signal('SIGKILL');
    }, options.graceSeconds * 1000);
    const result = await run.done();
    clearTimeout(kill);
    return {
      wrapper: c.name,
      init: init.name,
      started: true,
      marker: existsSync(path.join(dir, 'marker')),
      stopMs: Date.now() - sent,
      killedAtGrace,
      exitCode: result.exitCode,
      stderr: `${result.stdout}\n${result.stderr}`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs `tasks` with at most `limit` at a time, results in their order. */
export async function inBatches<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}
