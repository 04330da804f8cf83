// The one table of the exit codes sexton and its tools choose themselves (the child's own status
// passes through unchanged, or as 128+N for a signal). The code, `sexton --help` and the README's
// "Exit codes" section use it; test/unit/config/exit-codes.test.ts holds the README to it.

/** The init's own codes. */
export const EXIT = {
  /** sexton could not start (its addon, a thread, descriptors): no child ran. */
  startFailure: 1,
  /** Bad usage, here and in every tool but `status`: no child ran. */
  usage: 2,
  /** --strict: the child exited 0 but its processes leaked. */
  strict: 70,
  /** The command exists but cannot be executed, or fork failed (the shell's convention). */
  cannotRun: 126,
  /** The command was not found (the shell's convention). */
  notFound: 127,
  /** The native stop deadline ended a stop JS had not finished (timeout(1)'s code): init/stop-deadline.ts. */
  stopDeadline: 124,
} as const;

/** As tini or dumb-init: bad input exits 1, as theirs does. */
export const PEER_USAGE_EXIT = 1;

/** `sexton status`, chosen for probes: Docker's HEALTHCHECK reserves 2, so bad usage is 64 here. */
export const STATUS_EXIT = {
  /** It answered (and had no more zombies than --max-zombies). */
  ok: 0,
  /** It answered with more zombies than --max-zombies: a liveness probe fails. */
  tooManyZombies: 1,
  /** --ready: it answered, and is not ready (stopping, starting, or no READY=1 yet). */
  notReady: 1,
  /** Nobody answered: no sexton, or its status socket is off. */
  noAnswer: 3,
  /** Something answered but was not trusted, or refused us: see the message. */
  refused: 4,
  /** Bad usage (EX_USAGE). */
  usage: 64,
} as const;

/** `sexton probe`: those of timeout(1), which exec probes in the wild already use (native/tools/probe_options.h). */
export const PROBE_EXIT = {
  /** COMMAND ran past --timeout (its tree was then terminated). */
  timedOut: 124,
  /** The probe itself failed, or bad usage. */
  usage: 125,
  cannotRun: 126,
  notFound: 127,
} as const;

/** `sexton scan` (and `--stuck`): what it found, or why it could not look. */
export const SCAN_EXIT = { none: 0, some: 1, usage: EXIT.usage } as const;

/** `sexton harness`: the verdict of the run (harness/verdict.ts), or bad usage. */
export const HARNESS_EXIT = { clean: 0, 'init-failed': 1, 'app-leaks': 3, 'not-run': 4, usage: EXIT.usage } as const;

/** `sexton code-cache`: a cache is an optimisation, so a failure to make one is 1, not fatal. */
export const CODE_CACHE_EXIT = { ok: 0, failed: 1, usage: EXIT.usage } as const;

/** The init's codes as `sexton --help` lists them. */
export const INIT_EXIT_HELP: readonly [code: string, when: string][] = [
  ['N', "the child's own status; 128+N when signal N killed it (137: SIGKILL at the grace period, or it could not be " +
    "killed)"],
  [String(EXIT.startFailure), 'sexton could not start (its addon, a thread, descriptors)'],
  [String(EXIT.usage), 'bad usage'],
  [String(EXIT.strict), '--strict: the child exited 0 but leaked orphans or zombies'],
  [String(EXIT.cannotRun), 'the command cannot be executed, or fork failed'],
  [String(EXIT.notFound), 'the command was not found'],
  [String(EXIT.stopDeadline), 'the stop deadline (drain delay + grace + 3 s) ended a stop sexton had not finished'],
];
