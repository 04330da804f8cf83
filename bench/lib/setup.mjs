// What the bench needs before measuring: sexton built, the peers installed, the child compiled;
// and what RESULTS.md says about the machine and the versions.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SEXTON = path.join(ROOT, 'dist', 'sexton.js');
export const WORKLOAD = path.join(ROOT, 'dist', 'workload.js');

/** Each peer's binary and the Debian package that ships it (tini-static comes with tini). */
const PEERS = [
  { name: 'tini', binary: '/usr/bin/tini', pkg: 'tini', prefix: ['--'] },
  { name: 'tini-static', binary: '/usr/bin/tini-static', pkg: 'tini', prefix: ['--'] },
  { name: 'dumb-init', binary: '/usr/bin/dumb-init', pkg: 'dumb-init', prefix: [] },
  { name: 'catatonit', binary: '/usr/bin/catatonit', pkg: 'catatonit', prefix: ['--'] },
];

/**
 * The candidates, each a function from the child's argv to PID 1's argv. Only sexton takes a
 * grace period; the peers have none (they never end a child that ignores SIGTERM).
 */
export function candidates() {
  return [
    {
      name: 'sexton',
      grace: true,
      argv: (command, { grace } = {}) => [process.execPath, SEXTON, ...(grace ? ['--grace', String(grace)] : []), '--', ...command],
    },
    // What the status socket (on by default as PID 1) costs: the same sexton without it.
    {
      name: 'sexton, no socket',
      grace: true,
      argv: (command, { grace } = {}) => [
        process.execPath, SEXTON, '--status-socket', 'none', ...(grace ? ['--grace', String(grace)] : []), '--', ...command,
      ],
    },
    ...PEERS.map((peer) => ({ name: peer.name, argv: (command) => [peer.binary, ...peer.prefix, ...command] })),
  ];
}

export function requireBuilt() {
  for (const file of [SEXTON, WORKLOAD, path.join(ROOT, 'build', 'Release', 'sexton.node')]) {
    if (!existsSync(file)) throw new Error(`${path.relative(ROOT, file)} is missing: run "npm run build" first`);
  }
}

function aptGet(args) {
  const result = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  return { ok: result.status === 0, error: result.error?.message ?? String(result.stderr ?? '').trim().split('\n').slice(-3).join('\n') };
}

/** Installs the Debian packages of missing peers; `apt-get update` only when the install fails. */
export function ensurePeers(log) {
  const missing = [...new Set(PEERS.filter((peer) => !existsSync(peer.binary)).map((peer) => peer.pkg))];
  if (missing.length === 0) return;
  log(`installing ${missing.join(' ')} from Debian`);
  const install = ['install', '-y', '-qq', '--no-install-recommends', ...missing];
  let result = aptGet(install);
  if (!result.ok) {
    log('apt-get install failed; running apt-get update first');
    const update = aptGet(['update', '-qq']);
    if (!update.ok) throw new Error(`apt-get update failed: ${update.error}`);
    result = aptGet(install);
  }
  if (!result.ok) throw new Error(`apt-get install ${missing.join(' ')} failed: ${result.error}`);
  const still = PEERS.filter((peer) => !existsSync(peer.binary));
  if (still.length > 0) throw new Error(`still missing after install: ${still.map((peer) => peer.binary).join(', ')}`);
}

/** Compiles bench/NAME.c (child, churn) into a temporary directory; returns the binary and a cleanup. */
export function compileBench(name) {
  const dir = mkdtempSync(path.join(os.tmpdir(), `sexton-bench-${name}-`));
  const binary = path.join(dir, name);
  execFileSync('cc', ['-O2', '-Wall', '-o', binary, path.join(ROOT, 'bench', `${name}.c`)], { stdio: ['ignore', 'ignore', 'inherit'] });
  return { binary, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Compiles test/fixtures/faults-NAME.c into dir; returns the binary's path. */
export function compileFaultFixture(dir, name) {
  const binary = path.join(dir, name);
  execFileSync('cc', ['-O2', '-Wall', '-o', binary, path.join(ROOT, 'test', 'fixtures', `faults-${name}.c`)], { stdio: ['ignore', 'ignore', 'inherit'] });
  return binary;
}

function debianVersion(pkg) {
  try {
    return execFileSync('dpkg-query', ['-W', '-f=${Version}', pkg], { encoding: 'utf8' });
  } catch {
    return 'unknown';
  }
}

export function versions() {
  const sexton = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
  const out = { node: process.version, sexton };
  for (const peer of PEERS) out[peer.name] = `${debianVersion(peer.pkg)} (Debian ${peer.pkg})`;
  return out;
}

export function machine() {
  const cpus = os.cpus();
  return {
    nproc: os.availableParallelism(),
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    kernel: `${os.type()} ${os.release()}`,
  };
}
