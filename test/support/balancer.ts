// A load balancer in front of two pods, made of real parts: HAProxy (Debian's haproxy) on
// loopback, and two backends, each an HTTP server under sexton as PID 1 in a network namespace of
// its own joined to this one by a veth pair (as a pod's). Everything is named drain-<random> and
// removed after. The load is bounded in rate, count and time.
import { execa } from 'execa';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fixture, Pid1Run, startPid1, until } from './pid1';
import { track } from './processes';

export const HAPROXY = '/usr/sbin/haproxy';
const BACKEND_PORT = 8080;

/** Fails, never skips, without Debian's haproxy. */
export function requireHaproxy(): void {
  if (!existsSync(HAPROXY)) throw new Error(`${HAPROXY} is missing: run .ci/setup (Debian package haproxy)`);
}

const ip = (args: string[]) => execa('ip', args, { timeout: 10_000 });

/** A network namespace with a veth pair to this one: the backend at `address`, this end at `gateway`. */
export interface Pod {
  netns: string;
  address: string;
  gateway: string;
}

export class Rig {
  readonly id = Math.random().toString(16).slice(2, 7);
  readonly dir = mkdtempSync(path.join(tmpdir(), `drain-${this.id}-`));
  readonly pods: Pod[] = [];
  private haproxy?: ReturnType<typeof execa>;
  /** HAProxy's frontend port on 127.0.0.1. */
  port = 0;
  /** Two random octets: another run (or engineer) on this machine gets other addresses. */
  private readonly net = [64 + Math.floor(Math.random() * 128), Math.floor(Math.random() * 250)];

  /** `ip netns` drain-<id>-<i>, veth drain-<id><i> (15 characters at most) and its peer. */
  async addPod(): Promise<Pod> {
    const i = this.pods.length;
    const netns = `drain-${this.id}-${i}`;
    const [a, b] = this.net;
    const pod = { netns, address: `10.${a}.${b}.${4 * i + 2}`, gateway: `10.${a}.${b}.${4 * i + 1}` };
    const host = `drain-${this.id}${i}`;
    const peer = `drain-${this.id}${i}p`;
    await ip(['netns', 'add', netns]);
    this.pods.push(pod);
    await ip(['link', 'add', host, 'type', 'veth', 'peer', 'name', peer, 'netns', netns]);
    await ip(['addr', 'add', `${pod.gateway}/30`, 'dev', host]);
    await ip(['link', 'set', host, 'up']);
    for (const args of [['link', 'set', 'lo', 'up'], ['addr', 'add', `${pod.address}/30`, 'dev', peer], ['link', 'set', peer, 'up']]) {
      await ip(['netns', 'exec', netns, 'ip', ...args]);
    }
    return pod;
  }

  /** The backend app under sexton (with `sextonArgs`) as PID 1 in the pod's namespace. */
  async startBackend(pod: Pod, name: string, sextonArgs: string[]): Promise<Pid1Run> {
    const run = await startPid1([...sextonArgs, '--', process.execPath, fixture('drain-backend.cjs'), String(BACKEND_PORT), name], {
      launcher: ['ip', 'netns', 'exec', pod.netns], timeoutMs: 60_000,
    });
    await run.waitFor(`${name} listening`);
    return run;
  }

  /**
   * HAProxy in front of the pods. `pooled`: server connections are reused by any request
   * (http-reuse always); otherwise never, so each request is a new connection to a backend.
   * `check`: health-check each backend's GET /readyz on that port. No retries and no
   * redispatch: a request sent to a backend that refuses it fails, as the client sees it.
   */
  async startHaproxy(options: { pooled?: boolean; check?: { port: number } } = {}): Promise<void> {
    this.port = 20000 + Math.floor(Math.random() * 20000);
    const check = options.check ? ` check port ${options.check.port} inter 100 fall 2 rise 2` : '';
    const config = [
      'global',
      `  stats socket ${this.socket} mode 600 level admin`,
      '  maxconn 512',
      'defaults',
      '  mode http',
      '  retries 0',
      '  timeout connect 1s',
      '  timeout client 5s',
      '  timeout server 5s',
      '  timeout check 1s',
      `frontend web`,
      `  bind 127.0.0.1:${this.port}`,
      '  default_backend pods',
      'backend pods',
      '  balance roundrobin',
      `  http-reuse ${options.pooled ? 'always' : 'never'}`,
      ...(options.check ? ['  option httpchk GET /readyz'] : []),
      ...this.pods.map((pod, i) => `  server b${i} ${pod.address}:${BACKEND_PORT}${check}`),
      '',
    ].join('\n');
    const file = path.join(this.dir, 'haproxy.cfg');
    writeFileSync(file, config);
    this.haproxy = execa(HAPROXY, ['-db', '-f', file], { reject: false, all: true, timeout: 120_000, killSignal: 'SIGKILL' });
    track(this.haproxy.pid as number);
    // The socket's file appears at bind(), before HAProxy listens on it: a connect in between is
    // refused (seen in CI). Ready is when it answers.
    await until(async () => existsSync(this.socket) && (await this.runtime('show info').catch(() => '')).includes('Name: HAProxy'), 10_000, 'HAProxy to answer');
  }

  get socket(): string {
    return path.join(this.dir, 'haproxy.sock');
  }

  /** One command to HAProxy's runtime API; its answer. */
  runtime(command: string): Promise<string> {
    return new Promise((resolve, reject) => {
      let answer = '';
      const client = connect(this.socket, () => client.end(`${command}\n`));
      client.setTimeout(5000, () => client.destroy(new Error(`HAProxy runtime API: no answer to ${command}`)));
      client.on('data', (d) => (answer += d));
      client.on('error', reject);
      client.on('close', () => resolve(answer));
    });
  }

  /** Waits until HAProxy's checks say every backend is up (checked backends start down). */
  async untilUp(): Promise<void> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const stat = await this.runtime('show stat');
      const up = stat.split('\n').filter((line) => line.startsWith('pods,b') && line.split(',')[17] === 'UP').length;
      if (up === this.pods.length) return;
      if (Date.now() > deadline) throw new Error(`HAProxy's backends did not come up: ${stat}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Takes backend `i` out of rotation (kube-proxy after the endpoint's deletion). */
  async remove(i: number): Promise<void> {
    const answer = await this.runtime(`set server pods/b${i} state maint`);
    if (answer.trim() !== '') throw new Error(`HAProxy refused to remove b${i}: ${answer.trim()}`);
  }

  async close(): Promise<void> {
    if (this.haproxy) {
      this.haproxy.kill('SIGKILL');
      await this.haproxy;
    }
    for (const pod of this.pods.splice(0)) {
      // The veth pair goes with the namespace; the host end with its peer.
      await execa('ip', ['netns', 'del', pod.netns], { reject: false, timeout: 10_000 });
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export interface LoadResult {
  sent: number;
  failed: number;
  /** Failures by what the client saw: an HTTP status or an error code. */
  failures: Record<string, number>;
  /** The longest pause between two requests sent: the load's own hiccups on a busy machine. */
  maxGapMs: number;
}

/**
 * Starts the load (test/fixtures/drain-load.cjs): `rate` requests a second to 127.0.0.1:port,
 * each on a new client connection, until stopped or `maxMs` passed. A request fails unless it
 * gets 200 within 3 s.
 */
export async function startLoad(port: number, rate: number, maxMs: number): Promise<{ stop(): Promise<LoadResult> }> {
  const load = execa(process.execPath, [fixture('drain-load.cjs'), String(port), String(rate), String(maxMs)], {
    reject: false, timeout: maxMs + 10_000, killSignal: 'SIGKILL', stdin: 'pipe',
  });
  track(load.pid as number);
  let out = '';
  load.stdout?.on('data', (d) => (out += d));
  await until(() => out.includes('loading'), 10_000, 'the load to start');
  return {
    async stop() {
      load.stdin?.end('stop\n');
      const done = await load;
      const line = done.stdout.split('\n').find((l) => l.startsWith('{'));
      if (!line) throw new Error(`the load reported nothing (exit ${done.exitCode}): ${done.stderr}`);
      return JSON.parse(line) as LoadResult;
    },
  };
}
