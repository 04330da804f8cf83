// `sexton status [--json] [--socket PATH] [--max-zombies N]`: ask the running sexton.
// Exit 0: answered; 1: more zombies than --max-zombies (a liveness probe); 2: no sexton or bad input.
import { writeSync } from 'node:fs';
import { defaultSocketPaths } from './exporters/status-socket';
import { formatStatus, StatsSnapshot } from './stats';

export const STATUS_USAGE = `Usage: sexton status [--json] [--socket PATH] [--max-zombies N]

Asks the sexton running in this container (over its status socket) what it has reaped,
forwarded and seen. Exits 0, or 1 when more than N zombies exist (--max-zombies, for a liveness
probe), or 2 when no sexton answers.`;

const TIMEOUT_MS = 2000;

function ask(path: string): Promise<StatsSnapshot> {
  const net = require('node:net') as typeof import('node:net');
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = net.createConnection(path);
    socket.setTimeout(TIMEOUT_MS, () => socket.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    socket.on('data', (chunk) => (text += chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      try {
        resolve(JSON.parse(text) as StatsSnapshot);
      } catch {
        reject(new Error('the answer was not JSON'));
      }
    });
  });
}

function fail(message: string): number {
  try {
    writeSync(2, `sexton status: ${message}\n`);
  } catch {
    // nowhere to say it
  }
  return 2;
}

export async function statusMain(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let json = false;
  let socket = env.SEXTON_STATUS_SOCKET || undefined;
  let maxZombies: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].startsWith('--') && argv[i].includes('=') ? argv[i].split(/=(.*)/s) : [argv[i], undefined];
    const value = () => inline ?? argv[++i];
    if (flag === '--json') json = true;
    else if (flag === '--socket') socket = value();
    else if (flag === '--max-zombies') {
      const text = value() ?? '';
      if (!/^\d+$/.test(text)) return fail(`--max-zombies needs a whole number, not '${text}'`);
      maxZombies = Number(text);
    } else if (flag === '-h' || flag === '--help') {
      writeSync(1, `${STATUS_USAGE}\n`);
      return 0;
    } else return fail(`unknown option '${argv[i]}'\nTry 'sexton status --help'.`);
  }
  const paths = socket ? [socket] : defaultSocketPaths();
  const errors: string[] = [];
  for (const path of paths) {
    let snapshot: StatsSnapshot;
    try {
      snapshot = await ask(path);
    } catch (error) {
      errors.push(`${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      continue;
    }
    writeSync(1, json ? `${JSON.stringify(snapshot)}\n` : formatStatus(snapshot));
    if (maxZombies !== undefined && snapshot.zombieCount > maxZombies) {
      writeSync(2, `sexton status: ${snapshot.zombieCount} zombies, more than --max-zombies ${maxZombies}\n`);
      return 1;
    }
    return 0;
  }
  return fail(`no sexton is answering (${errors.join('; ')})`);
}
