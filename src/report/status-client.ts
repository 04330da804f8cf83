// `sexton status [--json] [--socket ADDRESS] [--pid N] [--max-zombies N]`: ask the running sexton.
// Exit codes (config/exit-codes.ts) are chosen for probes: Docker's HEALTHCHECK reserves 2.
import { readFileSync, writeSync } from 'node:fs';
import type { Socket } from 'node:net';
import { defaultSocketPaths } from '../config/addresses';
import { Refusal, socketAddress, socketFd } from './exporters/status-socket';
import { loadNative } from '../platform/native';
import { quote } from '../config/quote';
import { STATUS_EXIT } from '../config/exit-codes';
import { writeOrDrop } from '../platform/log';
import { formatStatus, StatsSnapshot } from './stats';

export const STATUS_USAGE = `Usage: sexton status [--json] [--ready] [--socket ADDRESS] [--pid N] [--max-zombies N]

Asks the sexton running as PID 1 of this PID namespace (the container) what it has reaped,
forwarded and seen, over its status socket: by default an abstract socket named after the PID
namespace, so it needs no file; --socket names another (a path, or @NAME for an abstract one).
Only PID 1's answer is trusted, or that of the pid given with --pid N.

--ready is the exec form of GET /readyz: one line, and exit 0 when sexton is ready (the app
runs, has said READY=1 under --ready-when notify, and no stop signal has come), 1 when not.

Exit status: 0 answered (--ready: and ready); 1 more zombies than --max-zombies N (for a liveness
probe), or --ready and not ready; 3 nobody
answered (no sexton, or its status socket is off); 4 the answer was not trusted, or sexton
refused us (only root and sexton's own uid may ask); 64 bad usage.`;

const TIMEOUT_MS = 2000;

class StatusError extends Error {
  constructor(message: string, readonly exitCode: number) {
    super(message);
  }
}

/** Whether the process at the other end is the sexton we mean to ask. */
function distrust(socket: Socket, expectedPid: number): string | undefined {
  const peer = loadNative().peerCredentials(socketFd(socket));
  if (typeof peer === 'number') return `cannot tell who answers (SO_PEERCRED failed, errno ${peer})`;
  const ownUid = process.getuid?.() ?? 0;
  if (peer.uid !== 0 && peer.uid !== ownUid) return `it runs as uid ${peer.uid}, neither root nor uid ${ownUid}`;
  if (peer.pid === expectedPid) return undefined;
  if (peer.pid === 0) return 'it is a process of another PID namespace (another container)';
  const hint = expectedPid === 1 ? `; pass --pid ${peer.pid} to ask it anyway` : '';
  return `it is pid ${peer.pid} here, not ${expectedPid === 1 ? 'PID 1' : `pid ${expectedPid}`}${hint}`;
}

function ask(address: string, expectedPid: number): Promise<StatsSnapshot> {
  const net = require('node:net') as typeof import('node:net');
  return new Promise((resolve, reject) => {
    let text = '';
    let distrusted: string | undefined;
    const socket = net.createConnection(socketAddress(address), () => {
      distrusted = distrust(socket, expectedPid);
      if (distrusted) socket.destroy(new StatusError(
        `the process answering on ${address} is not trusted: ${distrusted}`, STATUS_EXIT.refused));
    });
    socket.setTimeout(TIMEOUT_MS, () => socket.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    socket.on('data', (chunk) => (text += chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      let answer: StatsSnapshot | Refusal;
      try {
        answer = JSON.parse(text);
      } catch {
        return reject(new Error('the answer was not JSON'));
      }
      if ('refused' in answer) reject(new StatusError(`sexton refused to answer: ${answer.refused}`,
        STATUS_EXIT.refused));
      else resolve(answer);
    });
  });
}

/** Why PID 1 has no status socket, when it is a sexton told so; undefined otherwise. */
function statusOffInPid1(): string | undefined {
  try {
    const argv = readFileSync('/proc/1/cmdline', 'latin1').split('\0');
    const dash = argv.indexOf('--');
    const own = dash < 0 ? argv : argv.slice(0, dash);
    if (!own.some((arg) => /(^|\/)sexton(\.js)?$/.test(arg))) return undefined;
    if (own.includes('--status-socket=none') || own.some((arg, i) => arg === '--status-socket'
      && own[i + 1] === 'none')) {
      return 'PID 1 is a sexton started with --status-socket none: its status socket is off';
    }
    // The environment of PID 1 is readable by root and its own uid only.
    if (readFileSync('/proc/1/environ', 'latin1').split('\0').includes('SEXTON_STATUS_SOCKET=none')) {
      return 'PID 1 is a sexton started with SEXTON_STATUS_SOCKET=none: its status socket is off';
    }
  } catch {
    // no /proc, or not ours to read
  }
  return undefined;
}

function say(message: string, exitCode: number): number {
  writeOrDrop(2, `sexton status: ${message}\n`);
  return exitCode;
}

export async function statusMain(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let json = false;
  let socket = env.SEXTON_STATUS_SOCKET || undefined;
  let fromEnv = socket !== undefined;
  let expectedPid = 1;
  let maxZombies: number | undefined;
  let ready = false;
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].startsWith('--') && argv[i].includes('=') ? argv[i].split(/=(.*)/s) : [argv[i],
      undefined];
    const value = () => inline ?? argv[++i];
    const number = (name: string, min: number) => {
      const text = value() ?? '';
      if (!/^\d+$/.test(text) || Number(text) < min) throw new StatusError(`${name} needs a whole ` +
        `number${min > 0 ? ` from ${min}` : ''}, not ${quote(text)}`, STATUS_EXIT.usage);
      return Number(text);
    };
    try {
      if (flag === '--json') json = true;
      else if (flag === '--ready') ready = true;
      else if (flag === '--socket') [socket, fromEnv] = [value(), false];
      else if (flag === '--pid') expectedPid = number('--pid', 1);
      else if (flag === '--max-zombies') maxZombies = number('--max-zombies', 0);
      else if (flag === '-h' || flag === '--help') return writeSync(1, `${STATUS_USAGE}\n`), STATUS_EXIT.ok;
      else throw new StatusError(`unknown option ${quote(argv[i])}; try 'sexton status --help'`, STATUS_EXIT.usage);
    } catch (error) {
      return say((error as Error).message, (error as StatusError).exitCode ?? STATUS_EXIT.usage);
    }
  }
  if (socket === 'none') return say(
    `the status socket is off here (${fromEnv ? 'SEXTON_STATUS_SOCKET=none' : '--socket none'})`, STATUS_EXIT.noAnswer);
  const address = socket ?? defaultSocketPaths()[0];
  let snapshot: StatsSnapshot;
  try {
    snapshot = await ask(address, expectedPid);
  } catch (error) {
    if (error instanceof StatusError) return say(error.message, error.exitCode);
    const why = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    const off = socket === undefined ? statusOffInPid1() : undefined;
    return say(off ?? `no sexton is answering (${address}: ${why})`, STATUS_EXIT.noAnswer);
  }
  if (ready) {
    // A sexton from before --health has no health in its answer: it cannot say, so not ready.
    const health = snapshot.health ?? { ready: false, reason: 'this sexton does not report readiness' };
    writeSync(1, json ? `${JSON.stringify(health)}\n` : `${health.ready ? 'ready' : 'not ready'}: ${health.reason}\n`);
    return health.ready ? STATUS_EXIT.ok : STATUS_EXIT.notReady;
  }
  writeSync(1, json ? `${JSON.stringify(snapshot)}\n` : formatStatus(snapshot));
  if (maxZombies !== undefined && snapshot.zombieCount > maxZombies) {
    return say(`${snapshot.zombieCount} zombies, more than --max-zombies ${maxZombies}`, STATUS_EXIT.tooManyZombies);
  }
  return STATUS_EXIT.ok;
}
