// `sexton scan`: every zombie on the node and the container and pod that leak it.
// Exit 0: no zombie at least --min-age old; 1: some; 2: bad usage (one line, never a trace).
import { parseHostPort } from '../config/addresses';
import { SCAN_EXIT } from '../config/exit-codes';
import { writeOrDrop } from '../platform/log';
import { formatJson, formatStuckTable, formatTable, printable } from './format';
import { serve } from './metrics';
import { scan, ScanOptions } from './scan';
import { scanStuck } from './stuck';

export const SCAN_USAGE = `Usage: sexton scan [--json] [--min-age SECONDS] [--proc DIR] [--pods-dir DIR]
       sexton scan --stuck [--json] [--min-age SECONDS] [--proc DIR] [--pods-dir DIR]
       sexton scan --serve HOST:PORT [--min-age SECONDS] [--proc DIR] [--pods-dir DIR]

Finds every zombie on this node (run it on the node, or in a pod with hostPID), groups them by
the live parent holding them, and names that parent's container and pod from its cgroup and
the kubelet's pod log directories. Exits 0 when no zombie is at least --min-age seconds old
(default 0), 1 when some are, 2 on bad usage.

With --stuck it finds instead the processes SIGKILL cannot end now (why a pod stays
Terminating): state D (uninterruptible) or SIGKILL pending, at two looks --min-age seconds apart
(default 1), each with its wait channel, system call and the network or FUSE mount it is on.
Exits 0 when none, 1 when some, 2 on bad usage. --serve exports both.

  --json             one JSON object instead of the table
  --stuck            stuck processes instead of zombies
  --min-age SECONDS  leave out parents whose oldest zombie is younger; with --stuck or
                     --serve, processes stuck for less time
  --proc DIR         where /proc is (default /proc)
  --pods-dir DIR     the kubelet's pod log directory (default /var/log/pods)
  --serve HOST:PORT  serve Prometheus metrics on /metrics, one scan a second at most`;

class Usage extends Error {}

export const STUCK_DEFAULT_MIN_AGE_SECONDS = 1;
/** --stuck waits this long between its looks: a day bounds it, as any wait of sexton's is. */
const MAX_MIN_AGE_SECONDS = 86400;

interface ScanRequest extends ScanOptions {
  json: boolean;
  stuck: boolean;
  serve?: { host: string; port: number };
  help: boolean;
}

export function parseScanArgs(argv: string[]): ScanRequest {
  const request: ScanRequest = { json: false, stuck: false, help: false, procRoot: '/proc', podsDir: '/var/log/pods',
    minAgeSeconds: 0 };
  let minAgeGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const at = argv[i].startsWith('--') ? argv[i].indexOf('=') : -1;
    const flag = at > 0 ? argv[i].slice(0, at) : argv[i];
    const value = () => {
      const text = at > 0 ? argv[i].slice(at + 1) : argv[++i];
      if (text === undefined || text === '') throw new Usage(`${flag} needs a value`);
      return text;
    };
    if (flag === '--json' && at < 0) request.json = true;
    else if (flag === '--stuck' && at < 0) request.stuck = true;
    else if (flag === '-h' || flag === '--help') request.help = true;
    else if (flag === '--proc') request.procRoot = value();
    else if (flag === '--pods-dir') request.podsDir = value();
    else if (flag === '--min-age') {
      const text = value();
      if (!/^\d+(\.\d+)?$/.test(text)) throw new Usage(`--min-age needs seconds (a number ≥ 0), not ` +
        `'${printable(text, 40)}'`);
      request.minAgeSeconds = Number(text);
      minAgeGiven = true;
      if (request.minAgeSeconds > MAX_MIN_AGE_SECONDS) throw new Usage(
        `--min-age is at most ${MAX_MIN_AGE_SECONDS} seconds`);
    } else if (flag === '--serve') {
      const text = value();
      request.serve = parseHostPort(text);
      if (!request.serve) throw new Usage(`--serve needs HOST:PORT, not '${printable(text, 40)}'`);
    } else throw new Usage(`unknown argument '${printable(argv[i], 40)}' (see sexton scan --help)`);
  }
  if (request.serve && request.json) throw new Usage('--json and --serve do not go together');
  if (request.serve && request.stuck) throw new Usage('--serve exports stuck processes already: leave out --stuck');
  // One look at state D catches ordinary disk waits of milliseconds.
  if (request.stuck && !minAgeGiven) request.minAgeSeconds = STUCK_DEFAULT_MIN_AGE_SECONDS;
  return request;
}

const say = writeOrDrop;

const log = (line: string) => say(2, `sexton scan: ${line}\n`);

export async function scanMain(argv: string[]): Promise<number> {
  let request: ScanRequest;
  try {
    request = parseScanArgs(argv);
  } catch (error) {
    if (!(error instanceof Usage)) throw error;
    log(error.message);
    return SCAN_EXIT.usage;
  }
  if (request.help) {
    say(1, `${SCAN_USAGE}\n`);
    return 0;
  }
  if (request.serve) return serve(request.serve, request, log);
  if (request.stuck) return stuckMain(request);
  let result;
  try {
    result = scan(request);
  } catch (error) {
    // Only the process directory itself being unreadable is fatal; entries are skipped.
    const why = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    log(`cannot read ${printable(request.procRoot, 60)}: ${why}`);
    return SCAN_EXIT.usage;
  }
  if (result.podsDirFound === false) log(
    `no kubelet pod directory at ${printable(request.podsDir, 60)}: pods are named by id only`);
  say(1, request.json ? formatJson(result) : formatTable(result, request.minAgeSeconds));
  return result.groups.length > 0 ? SCAN_EXIT.some : SCAN_EXIT.none;
}

async function stuckMain(request: ScanRequest): Promise<number> {
  let result;
  try {
    result = await scanStuck(request);
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    log(`cannot read ${printable(request.procRoot, 60)}: ${why}`);
    return SCAN_EXIT.usage;
  }
  if (result.podsDirFound === false) log(
    `no kubelet pod directory at ${printable(request.podsDir, 60)}: pods are named by id only`);
  say(1, request.json ? formatJson(result) : formatStuckTable(result));
  return result.stuck.length + result.notDescribed > 0 ? SCAN_EXIT.some : SCAN_EXIT.none;
}
