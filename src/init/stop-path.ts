// Whether the runtime's stop signal will reach sexton, said once at the start. A container
// runtime sends its stop signal to the container's PID 1. As PID 1, sexton gets it. Otherwise
// the two ways it goes wrong are told apart: sexton started by a PID 1 that is no init (a shell
// entrypoint that runs `sexton -- app` without exec) hears nothing unless that PID 1 forwards;
// and sexton neither PID 1 nor a subreaper cannot reap its child's orphans.

/**
 * Inits that forward signals to their child: under them sexton hears the stop. sexton names
 * itself sexton (src/boot/first-handlers.ts); `node` is a sexton that did not yet.
 */
const FORWARDING_INITS = new Set(['tini', 'tini-static', 'dumb-init', 'catatonit', 'docker-init', 'sexton', 'node']);

export interface StopPathFacts {
  isInit: boolean;
  subreaper: boolean;
  /** Whether /proc is this namespace's: only then is /proc/1 our PID 1. */
  procTrusted: boolean;
  ppid: number;
  /** PID 1's command name (/proc/1/comm), when readable. */
  pid1Name?: string;
}

export function stopPathWarnings(f: StopPathFacts): string[] {
  if (f.isInit) return [];
  const out: string[] = [];
  const name = f.pid1Name?.trim();
  if (f.procTrusted && f.ppid === 1 && name && !FORWARDING_INITS.has(name)) {
    out.push(`not PID 1: PID 1 here is '${name}', and a container runtime sends its stop signal to PID 1; unless ` +
      `'${name}' forwards it, sexton never hears the stop and the app is SIGKILLed at the runtime's timeout (make ` +
        `sexton the entrypoint, or exec it)`);
  }
  if (!f.subreaper) out.push(
    `not PID 1 and not a subreaper: zombie reaping won't work for orphans of the child (pid ${f.ppid}'s init reaps ` +
      `them, not sexton)`);
  return out;
}

/**
 * The stop signal of the official image of each program that does not stop on TERM: an image
 * built FROM it inherits its STOPSIGNAL, and the runtime then sends that signal, not TERM.
 */
const IMAGE_STOP_SIGNALS: [RegExp, string][] = [
  [/^nginx$/, 'QUIT'], [/^php-fpm[\d.]*$/, 'QUIT'], [/^(httpd|httpd-foreground|apache2)$/, 'WINCH'],
  [/^postgres$/, 'INT'], [/^haproxy$/, 'USR1'],
];

export interface StopSignalFacts {
  isInit: boolean;
  /** The stop signal sexton stops on; 0: no stop sequence (a personality's default). */
  stopSignal: number;
  stopSignalName: string;
  /** --stop-signal or SEXTON_STOP_SIGNAL was given: the operator has chosen. */
  stopSignalGiven: boolean;
  /** The command's first word. */
  program: string;
  /** Each --rewrite as [from, to] names. */
  rewrites: [string, string][];
}

/**
 * One start-up line when the container's stop signal may not be sexton's. Nothing in a container
 * tells its PID 1 which signal the runtime will send (the image's STOPSIGNAL and the pod's
 * lifecycle.stopSignal stay with the runtime), so sexton speaks only where something it can see
 * points away from TERM: it is PID 1 (the one the runtime signals), the operator chose no stop
 * signal, and either the program is one whose official image stops with another signal, or
 * another signal is rewritten to the stop signal (`-r QUIT:TERM`: QUIT is expected as a stop).
 */
export function stopSignalWarning(f: StopSignalFacts): string | undefined {
  if (!f.isInit || f.stopSignalGiven || f.stopSignal <= 0) return undefined;
  const program = f.program.slice(f.program.lastIndexOf('/') + 1);
  const image = IMAGE_STOP_SIGNALS.find(([pattern]) => pattern.test(program))?.[1];
  const expected = f.rewrites.find(([from, to]) => from !== f.stopSignalName && to === f.stopSignalName)?.[0];
  const stop = f.stopSignalName;
  const other = image !== undefined && image !== stop ? image : expected;
  if (other === undefined) return undefined;
  const why = other === image
    ? `'${program}' images stop with ${image} (their STOPSIGNAL)`
    : `${other} is rewritten to ${stop}, as a stop would be`;
  return "the container's stop signal cannot be seen from inside (an image's STOPSIGNAL and a pod's "
    + `lifecycle.stopSignal reach only the runtime), and ${why}: if the runtime sends ${other}, sexton only `
    + 'forwards it (no drain, /readyz stays ready, no grace period). Set SEXTON_STOP_SIGNAL to the '
    + `container's stop signal (SEXTON_STOP_SIGNAL=${stop} if it is ${stop})`;
}
