// The one list of sexton's options: the parser's syntax, the usage text, the environment
// variables and the defaults all come from it, and a test checks the README's table against it.
// What each value means is decided in options.ts.

export interface OptionSpec {
  long: string;
  short?: string;
  /** Names the value (SECONDS, SIGNAL…); absent for a flag that takes none. */
  value?: string;
  /** The environment variable, and how its value is shown in the usage. */
  env?: string;
  envValue?: string;
  /** The value taken when neither the flag nor the variable gives one; the usage shows it. */
  default?: string;
  /** Usage text, one entry per line. */
  help: string[];
  /** Reached by its short letter only: `long` is just its name (tini has no long options). */
  shortOnly?: boolean;
  /**
   * Under the tini and dumb-init personalities: 'variable', kept through its variable (sexton's
   * extras, off unless set); 'peer-flag', the peer's own flag stands for it and the variable is
   * not read; absent, not kept at all. A variable set but not read is said in one line.
   */
  peers?: 'variable' | 'peer-flag';
}

export const OPTION_TABLE: readonly OptionSpec[] = [
  { long: 'verbose', short: 'v', env: 'SEXTON_VERBOSE', envValue: '1|2', peers: 'peer-flag',
    help: ['more log lines on stderr; repeat for more'] },
  { long: 'quiet', short: 'q', env: 'SEXTON_QUIET', envValue: '1', peers: 'peer-flag', help: ['errors only'] },
  { long: 'no-subreaper', env: 'SEXTON_SUBREAPER', envValue: '0', peers: 'peer-flag',
    help: ['do not register as child subreaper (not PID 1)'] },
  { long: 'subreaper', help: ['register as child subreaper (the default)'] },
  { long: 'pgroup', short: 'g', env: 'SEXTON_PGROUP', envValue: '1', peers: 'peer-flag',
    help: ["forward signals to the child's process group"] },
  { long: 'rewrite', short: 'r', value: 'FROM:TO', env: 'SEXTON_REWRITE', envValue: 'FROM:TO,...', peers: 'peer-flag',
    help: ['forward FROM as TO; TO=0 or none drops it'] },
  { long: 'pdeath', short: 'p', value: 'SIGNAL', env: 'SEXTON_PDEATH', peers: 'peer-flag',
    help: ['signal sexton gets when its parent dies'] },
  { long: 'remap-exit', short: 'e', value: 'CODE', env: 'SEXTON_REMAP_EXIT', envValue: 'CODE,...', peers: 'peer-flag',
    help: ['report child exit CODE as 0 (repeatable)'] },
  { long: 'stop-signal', short: 's', value: 'SIGNAL', env: 'SEXTON_STOP_SIGNAL', default: 'TERM', peers: 'variable',
    help: ['signal that starts shutdown'] },
  { long: 'drain-delay', short: 'd', value: 'SECONDS', env: 'SEXTON_DRAIN_DELAY', default: '0', peers: 'variable',
    help: ['wait before forwarding the stop signal'] },
  { long: 'drain-quiet', value: 'SECONDS', env: 'SEXTON_DRAIN_QUIET',
    help: ['forward it once no traffic reached the app for', 'SECONDS; --drain-delay is then the cap (off)'] },
  { long: 'grace', short: 't', value: 'SECONDS', env: 'SEXTON_GRACE', default: '10', peers: 'variable',
    help: ['time the whole tree gets to exit'] },
  { long: 'strict', env: 'SEXTON_STRICT', envValue: '1', peers: 'variable',
    help: ['exit 70 if the child exited 0 but leaked', 'orphans or zombies (a CI check)'] },
  { long: 'status-socket', value: 'PATH', env: 'SEXTON_STATUS_SOCKET', peers: 'variable',
    help: ["where 'sexton status' asks; none = off", '(default on as PID 1: an abstract socket, @NAME)'] },
  { long: 'metrics', value: 'HOST:PORT', env: 'SEXTON_METRICS', peers: 'variable',
    help: ['serve Prometheus metrics (off); HOST is an', 'IP address or localhost'] },
  { long: 'health', value: 'HOST:PORT', env: 'SEXTON_HEALTH',
    help: ['serve GET /livez and /readyz (off); may be', "--metrics's address (one port for both)"] },
  { long: 'ready-when', value: 'WHEN', env: 'SEXTON_READY_WHEN', default: 'started',
    help: ['started or notify: ready once the app', 'sends READY=1 to $NOTIFY_SOCKET'] },
  { long: 'stats-file', value: 'PATH', env: 'SEXTON_STATS_FILE', peers: 'variable',
    help: ['keep stats as JSON at PATH (off)'] },
  { long: 'log-format', value: 'FORMAT', env: 'SEXTON_LOG_FORMAT', default: 'text', peers: 'variable',
    help: ['text, or json: one object a line'] },
  { long: 'child-oom-score-adj', value: 'V', env: 'SEXTON_CHILD_OOM_SCORE_ADJ', default: 'auto', peers: 'variable',
    help: ['auto, off or -1000..1000; auto: the OOM', 'killer picks an app process before sexton'] },
  { long: 'help', short: 'h', help: ['this text'] },
  { long: 'version', short: 'V', help: ["sexton's version"] },
];

// Each personality (src/personalities/) has a table of the same shape; these take it as `table`.

export function optionNamed(long: string, table: readonly OptionSpec[] = OPTION_TABLE): OptionSpec | undefined {
  return table.find((o) => o.long === long && !o.shortOnly);
}

/** The environment variable of the option named `long`, from the table. */
export function variableOf(long: string, table: readonly OptionSpec[] = OPTION_TABLE): string {
  const name = optionNamed(long, table)?.env;
  if (name === undefined) throw new Error(`option --${long} has no variable`);
  return name;
}

export function optionWithShort(letter: string, table: readonly OptionSpec[] = OPTION_TABLE): OptionSpec | undefined {
  return table.find((o) => o.short === letter);
}

/** The options part of the usage text: flag, help and variable in three columns. */
export function optionsUsage(table: readonly OptionSpec[] = OPTION_TABLE): string {
  const flag = (o: OptionSpec) => {
    const value = o.value ? ` ${o.value}` : '';
    if (o.shortOnly) return `-${o.short}${value}`;
    return `${o.short ? `-${o.short}, ` : '    '}--${o.long}${value}`;
  };
  // The default closes the option's last line of help.
  const help = (o: OptionSpec) => (o.default === undefined ? o.help
    : [...o.help.slice(0, -1), `${o.help.at(-1)} (default ${o.default})`]);
  const flagWidth = Math.max(...table.map((o) => flag(o).length)) + 2;
  const helpWidth = Math.max(...table.map((o) => help(o)[0].length)) + 2;
  const lines: string[] = [];
  for (const o of table) {
    const env = o.env ? `${o.env}=${o.envValue ?? o.value}` : '';
    const [first, ...more] = help(o);
    lines.push(`  ${flag(o).padEnd(flagWidth)}${first.padEnd(helpWidth)}${env}`.trimEnd());
    for (const line of more) lines.push(`  ${''.padEnd(flagWidth)}${line}`);
  }
  return lines.join('\n');
}
