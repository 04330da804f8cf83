// `sexton probe`'s command line and exit statuses: those of timeout(1), which exec probes in the
// wild already use, so a probe keeps its meaning when wrapped.
import { quote } from '../config/quote';

export const PROBE_EXIT = {
  /** CMD ran past --timeout (its tree was then terminated). */
  timedOut: 124,
  /** The probe itself failed, or bad usage (timeout(1)'s 125). */
  usage: 125,
  cannotRun: 126,
  notFound: 127,
} as const;

export const PROBE_USAGE = `Usage: sexton probe [--timeout SECONDS] [--kill-after SECONDS] -- COMMAND [ARGS...]

Runs COMMAND for an exec probe (Kubernetes livenessProbe/readinessProbe exec, podman/Docker
HEALTHCHECK) so that nothing it starts outlives it: COMMAND runs in a process group of its own
under this process as a subreaper, so even what it daemonizes or setsid's stays below it.
After --timeout (default 10) every process of the tree gets TERM, and KILL after --kill-after
more (default 1); all are reaped. When COMMAND ends in time, whatever it left running is
terminated the same way. Set --timeout below the probe's timeoutSeconds: a runtime that gives up
first kills this process and not its tree.

Exit status: COMMAND's (128+N when killed by signal N); 124 when it timed out; 125 bad usage;
126 COMMAND could not run; 127 COMMAND was not found.`;

export interface ProbeOptions {
  timeout: number;
  killAfter: number;
  command: string[];
}

export class ProbeUsageError extends Error {}

function seconds(name: string, text: string | undefined): number {
  const t = (text ?? '').trim();
  if (!/^\d+(\.\d+)?$/.test(t) || Number(t) <= 0 || Number(t) > 86400) {
    throw new ProbeUsageError(`${name} needs seconds from 0 to 86400 (not 0), e.g. 5 or 0.5, not ${quote(text ?? '')}`);
  }
  return Number(t);
}

export function parseProbeArgs(argv: string[]): ProbeOptions | 'help' {
  let timeout = 10;
  let killAfter = 1;
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].startsWith('--') && argv[i].includes('=') ? argv[i].split(/=(.*)/s) : [argv[i], undefined];
    const value = () => inline ?? argv[++i];
    if (flag === '--') {
      const command = argv.slice(i + 1);
      if (command.length === 0 || command[0] === '') throw new ProbeUsageError('no command after --');
      return { timeout, killAfter, command };
    }
    if (flag === '-h' || flag === '--help') return 'help';
    if (flag === '--timeout') timeout = seconds('--timeout', value());
    else if (flag === '--kill-after') killAfter = seconds('--kill-after', value());
    else if (flag.startsWith('-')) throw new ProbeUsageError(`unknown option ${quote(argv[i])}`);
    else return { timeout, killAfter, command: argv.slice(i) };
  }
  throw new ProbeUsageError('no command given');
}

/** Where execve looks for CMD: the names along PATH, as a shell would try them. */
export function searchCandidates(name: string, path = process.env.PATH || '/usr/local/bin:/usr/bin:/bin'): string[] {
  if (name.includes('/')) return [name];
  return path.split(':').map((dir) => `${dir === '' ? '.' : dir}/${name}`);
}
