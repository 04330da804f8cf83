// Reading one option's value, from a flag or its variable alike: each reader takes the text and
// gives the value, or refuses it with one UsageError line that says what it expected.
import { parseHostPort } from './addresses';
import { quote } from './quote';
import { parseSignal, UNHANDLED } from '../platform/signals';

/** A command line sexton refuses: one line, and the usage exit code (the personality's own as tini or dumb-init). */
export class UsageError extends Error {}

/** --child-oom-score-adj: 'auto', 'off' (leave it as inherited, like tini), or a value. */
export type OomPolicy = 'auto' | 'off' | number;

export const OOM_SCORE_ADJ_MAX = 1000;

export function signalOption(text: string, what: string): number {
  const n = parseSignal(text);
  if (n === undefined) throw new UsageError(`${what}: unknown signal ${quote(text)}`);
  return n;
}

export function parseRewrite(text: string): [number, number] {
  const m = /^([^:]+):([^:]+)$/.exec(text.trim());
  const shown = `rewrite ${quote(text)}`;
  if (!m) throw new UsageError(`${shown}: expected FROM:TO, e.g. TERM:INT or USR1:none`);
  const from = signalOption(m[1], shown);
  if (UNHANDLED.has(from)) throw new UsageError(
    `${shown}: sexton never handles ${quote(m[1])}, so it cannot be rewritten`);
  const to = /^(0|none)$/i.test(m[2].trim()) ? 0 : signalOption(m[2], shown);
  return [from, to];
}

export function parseExitCode(text: string): number {
  const t = text.trim();
  if (!/^\d+$/.test(t) || Number(t) > 255) throw new UsageError(`remap-exit ${quote(text)}: expected an exit code ` +
    `from 0 to 255`);
  return Number(t);
}

export function parseSeconds(what: string, text: string): number {
  const t = text.trim();
  if (!/^\d+(\.\d+)?$/.test(t) || Number(t) > 86400) throw new UsageError(`${what} ${quote(text)}: expected seconds ` +
    `from 0 to 86400, e.g. 10 or 0.5`);
  return Number(t);
}

/** The shortest quiet window: traffic is sampled a few times within it, each sample ~0.1 ms. */
export const DRAIN_QUIET_MIN = 0.1;

export function parseDrainQuiet(text: string, drainDelay: number): number {
  const t = text.trim();
  const seconds = /^\d+(\.\d+)?$/.test(t) ? Number(t) : NaN;
  if (!(seconds >= DRAIN_QUIET_MIN && seconds <= 86400)) {
    throw new UsageError(`drain-quiet ${quote(text)}: expected seconds from ${DRAIN_QUIET_MIN} to 86400, e.g. 2`);
  }
  if (seconds > drainDelay) {
    throw new UsageError(
      `drain-quiet ${seconds} is longer than drain-delay ${drainDelay}, its cap: give --drain-delay at ` +
        `least ${seconds}`);
  }
  return seconds;
}

export function parseBoolean(name: string, text: string): boolean {
  if (/^(1|true|yes|on)$/i.test(text.trim())) return true;
  if (/^(0|false|no|off)$/i.test(text.trim())) return false;
  throw new UsageError(`${name}=${quote(text)}: expected 1 or 0`);
}

export function parseOomPolicy(text: string): OomPolicy {
  const t = text.trim().toLowerCase();
  if (t === 'auto' || t === 'off') return t;
  const n = Number(t);
  if (!/^-?\d+$/.test(t) || Math.abs(n) > OOM_SCORE_ADJ_MAX) {
    throw new UsageError(`child-oom-score-adj ${quote(text)}: expected auto, off or a number from -1000 to 1000`);
  }
  return n;
}

/** IP addresses and localhost only: as PID 1 sexton makes no DNS lookup (it would start threads). */
export function parseListenAddress(option: string, text: string): { host: string; port: number } {
  const address = parseHostPort(text);
  const shown = `${option} ${quote(text)}`;
  if (!address) throw new UsageError(`${shown}: expected HOST:PORT, e.g. 0.0.0.0:19102 or [::]:19102`);
  if (address.host === 'localhost') return { ...address, host: '127.0.0.1' };
  // Node's own test: what it calls an IP it listens on without a lookup (net is loaded anyway
  // for the exporters, and only when --metrics is given).
  const { isIP } = require('node:net') as typeof import('node:net');
  if (isIP(address.host) !== 0) return address;
  throw new UsageError(`${shown}: HOST must be an IP address or localhost (sexton resolves no names as PID 1)`);
}

export function list(text: string | undefined): string[] {
  return (text ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
}
