// Random argv vectors and SEXTON_* environments for the option fuzz: known
// flags in every spelling, with hostile values (control characters, newlines, escape
// sequences, split surrogates, bytes that are not UTF-8, 100 KB), in a seeded, repeatable order.
// No value holds a '/': the CLI fuzz runs in a scratch directory and nothing may leave it.

const LONG_FLAGS = [
  'verbose', 'quiet', 'no-subreaper', 'subreaper', 'pgroup', 'rewrite', 'pdeath', 'remap-exit', 'stop-signal',
  'drain-delay', 'grace', 'strict', 'status-socket', 'metrics', 'stats-file', 'log-format', 'child-oom-score-adj',
  'help', 'version', 'bogus', '',
];
const SHORT_LETTERS = 'vqgrpesdthVxz';
const ENV_NAMES = [
  'SEXTON_VERBOSE', 'SEXTON_QUIET', 'SEXTON_SUBREAPER', 'SEXTON_PGROUP', 'SEXTON_REWRITE', 'SEXTON_PDEATH',
  'SEXTON_REMAP_EXIT', 'SEXTON_STOP_SIGNAL', 'SEXTON_DRAIN_DELAY', 'SEXTON_GRACE', 'SEXTON_STRICT',
  'SEXTON_STATUS_SOCKET', 'SEXTON_METRICS', 'SEXTON_STATS_FILE', 'SEXTON_LOG_FORMAT', 'SEXTON_CHILD_OOM_SCORE_ADJ',
];
const PLAIN_VALUES = [
  '', ' ', '0', '1', '-1', '10', '0.5', '1e3', '86401', 'NaN', 'TERM', 'SIGTERM', 'term', 'RTMIN+3', 'RTMAX-40', '64',
  'KILL', 'STOP', 'CHLD', 'TERM:INT', 'USR1:none', 'HUP:0', 'TERM:', ':', 'a:b:c', 'json', 'text', 'auto', 'off',
  '-1000', '1001', '127.0.0.1:0', 'localhost:9102', '[::1]:9102', 'example.com:80', '999.1.1.1:1', ':80', '1.2.3.4:99999',
  'none', 'yes', 'true', 'on', 'st\u00e4ts', '\u{1f600}', '\u00e9', '--', '-', '-v', '=',
];

/** Bytes a value is made of; a string value is its UTF-8. */
export type Word = string | Buffer;

export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    // mulberry32
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class ArgvFuzz {
  private readonly random: () => number;

  /** bytes: also produce values that are not UTF-8 (as Buffers), for the CLI. */
  constructor(seed: number, private readonly bytes = false) {
    this.random = prng(seed);
  }

  private int(n: number): number {
    return Math.floor(this.random() * n);
  }

  private pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** A hostile value: control characters, newlines, escapes, halves of surrogate pairs, size. */
  value(): Word {
    const kind = this.int(10);
    if (kind < 4) return this.pick(PLAIN_VALUES);
    if (kind === 4) return `${this.pick(PLAIN_VALUES)}${this.pick(['\n', '\r\n', '\t', '\x1b[31m', '\x07', '\x7f', '\x9b', '\u2028'])}${this.pick(PLAIN_VALUES)}`;
    if (kind === 5) return this.pick(['\ud800', '\udc00', 'a\ud83d', '\ude00b', '\ufffd']) + this.pick(PLAIN_VALUES);
    if (kind === 6) return 'x'.repeat(this.pick([81, 1000, 100_000]));
    if (kind === 7) {
      // Random code points, control characters included (never NUL: argv cannot hold it).
      let s = '';
      for (let i = this.int(20); i >= 0; i--) s += String.fromCodePoint(1 + this.int(this.random() < 0.7 ? 0x80 : 0x3000));
      return s.replace(/\//g, '\\');
    }
    if (kind === 8 && this.bytes) {
      const b = Buffer.alloc(1 + this.int(12));
      for (let i = 0; i < b.length; i++) b[i] = 1 + this.int(255);
      for (let i = 0; i < b.length; i++) if (b[i] === 0x2f) b[i] = 0x5c;  // no '/'
      return b;
    }
    return this.pick(PLAIN_VALUES) + this.pick(PLAIN_VALUES);
  }

  private flag(): Word[] {
    const kind = this.int(4);
    if (kind === 0) return [`--${this.pick(LONG_FLAGS)}`, this.value()];
    if (kind === 1) return [`--${this.pick(LONG_FLAGS)}=${this.text(this.value())}`];
    if (kind === 2) {
      let cluster = '-';
      for (let i = this.int(3); i >= 0; i--) cluster += this.pick([...SHORT_LETTERS]);
      return this.random() < 0.5 ? [cluster] : [cluster, this.value()];
    }
    return [`--${this.pick(LONG_FLAGS)}`];
  }

  private text(word: Word): string {
    return typeof word === 'string' ? word : word.toString('latin1');
  }

  /** Flags, then maybe `--` and the command. */
  argv(command: string): Word[] {
    const out: Word[] = [];
    for (let i = this.int(5); i > 0; i--) out.push(...this.flag());
    const end = this.int(4);
    if (end === 0) out.push('--', command);
    else if (end === 1) out.push(command);
    else if (end === 2) out.push('--');
    return out;
  }

  env(): Record<string, Word> {
    const env: Record<string, Word> = {};
    for (let i = this.int(3); i > 0; i--) env[this.pick(ENV_NAMES)] = this.value();
    return env;
  }
}

/** Whether a message is one bounded line of printable text: what every sexton message must be. */
export function messageProblems(message: string, maxLength = 1024): string[] {
  const problems: string[] = [];
  if (/[\n\r\u2028\u2029]/.test(message)) problems.push('more than one line');
  if (/[\x00-\x08\x0b-\x1f\x7f-\x9f\t]/.test(message)) problems.push('a raw control character');
  if (message.includes('\ufffd')) problems.push('U+FFFD');
  if (/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(message)) problems.push('a lone surrogate');
  if (message.length > maxLength) problems.push(`${message.length} characters`);
  return problems;
}
