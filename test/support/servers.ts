// Real servers from Debian packages (postgresql, nginx; installed by .ci/setup), set up in a
// scratch directory to run under sexton as PID 1, on loopback or Unix sockets only.
import { execa } from 'execa';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { killStarted, track } from './processes';

const scratch: string[] = [];

/** A scratch directory that other users (postgres, nginx's workers) can enter. */
export function openDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  chmodSync(dir, 0o755);
  scratch.push(dir);
  return dir;
}

/** For afterEach: SIGKILLs what the test started (killStarted) and removes scratch dirs. */
export function cleanUpServers(): void {
  killStarted();
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** PostgreSQL's server binaries (/usr/lib/postgresql/N/bin); fails, never skips, when missing. */
export function postgresBin(): string {
  const base = '/usr/lib/postgresql';
  const version = existsSync(base) ? readdirSync(base).sort().at(-1) : undefined;
  const bin = version && path.join(base, version, 'bin');
  if (!bin || !existsSync(path.join(bin, 'postgres'))) throw new Error('PostgreSQL is not installed: run .ci/setup (Debian package postgresql)');
  return bin;
}

/** Runs argv as the postgres user: the server refuses to run as root. */
export const asPostgres = (argv: string[]) => ['setpriv', '--reuid=postgres', '--regid=postgres', '--clear-groups', ...argv];

export interface Postgres {
  data: string;
  socketDir: string;
  /** The server's argv, as sexton's child: Unix socket only, no TCP. */
  argv: string[];
}

/** A fresh cluster (initdb, trust auth) in a scratch directory. */
export async function initPostgres(): Promise<Postgres> {
  const bin = postgresBin();
  const dir = openDir('sexton-pg-');
  const data = path.join(dir, 'data');
  const socketDir = path.join(dir, 'socket');
  for (const sub of [data, socketDir]) {
    mkdirSync(sub);
    await execa('chown', ['postgres:postgres', sub]);
  }
  const [command, ...args] = asPostgres([path.join(bin, 'initdb'), '-D', data, '-U', 'postgres', '--auth=trust']);
  await execa(command, args, { timeout: 60_000 });
  return { data, socketDir, argv: asPostgres([path.join(bin, 'postgres'), '-D', data, '-k', socketDir, '-c', 'listen_addresses=']) };
}

/** A psql session that stays connected (idle) until killed: what a smart shutdown waits for. */
export async function idleSession(pg: Postgres): Promise<void> {
  const psql = execa('psql', ['-h', pg.socketDir, '-U', 'postgres', '-d', 'postgres', '-X', '-q', '-A', '-t'], {
    stdin: 'pipe', reject: false, timeout: 60_000, killSignal: 'SIGKILL',
  });
  track(psql.pid);
  let out = '';
  psql.stdout?.on('data', (d) => (out += d));
  psql.stdin?.write('select 40 + 2;\n');
  const deadline = Date.now() + 10_000;
  while (!out.includes('42')) {
    if (Date.now() > deadline || psql.exitCode !== null) throw new Error(`psql did not connect: ${out}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** nginx serving `files` (name → size in bytes) from a scratch root on 127.0.0.1:port, at `rate`. */
export function nginxConfig(port: number, files: Record<string, number>, rate = '1m'): { conf: string; argv: string[] } {
  const dir = openDir('sexton-nginx-');
  const root = path.join(dir, 'www');
  mkdirSync(root);
  chmodSync(root, 0o755);
  for (const [name, size] of Object.entries(files)) {
    writeFileSync(path.join(root, name), Buffer.alloc(size, 'x'));
    chmodSync(path.join(root, name), 0o644);
  }
  const conf = path.join(dir, 'nginx.conf');
  writeFileSync(conf, `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log stderr info;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port};
    root ${root};
    location / { limit_rate ${rate}; }
  }
}
`);
  return { conf, argv: ['nginx', '-c', conf, '-e', 'stderr'] };
}

export interface Download {
  status: number;
  bytes: number;
  complete: boolean;
}

/** GET http://127.0.0.1:port/name, counting the bytes that arrive; never rejects. onHeaders: the response began (in flight). */
export function download(port: number, name: string, onHeaders?: () => void): Promise<Download> {
  return new Promise((resolve) => {
    let status = 0;
    let bytes = 0;
    let expected = -1;
    const req = request({ host: '127.0.0.1', port, path: `/${name}`, agent: false, timeout: 30_000 }, (res) => {
      onHeaders?.();
      status = res.statusCode ?? 0;
      expected = Number(res.headers['content-length'] ?? -1);
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolve({ status, bytes, complete: res.complete && bytes === expected }));
      res.on('error', () => resolve({ status, bytes, complete: false }));
    });
    req.on('error', () => resolve({ status, bytes, complete: false }));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

