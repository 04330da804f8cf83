// Readiness (--ready-when, /readyz, `sexton status --ready`): the app's sd_notify datagrams read
// and judged into the lifecycle's inputs, and whether the pod should get traffic, read from the
// lifecycle's state. The protocol (what systemd and podman read from NOTIFY_SOCKET): one datagram
// of newline-separated KEY=VALUE assignments, UTF-8.
import { notifySocketAddress } from '../config/addresses';
import { quote } from '../config/quote';
import type { Host } from '../platform/host';
import type { Logger } from '../platform/log';
import { Datagram, Native, StartError } from '../platform/native';
import type { Options } from '../config/options';
import { errnoName } from '../platform/os-constants';
import { readProcess } from '../platform/procfs';
import type { HealthState } from '../report/exporters/health';
import type { InitState, Input, Notification, Rejection } from './lifecycle';

/** --ready-when: ready once the child runs, or once it sends READY=1. */
export type ReadyWhen = 'started' | 'notify';

/** A STATUS= kept for `sexton status` and the log: cut to this many characters. */
export const STATUS_MAX_CHARS = 200;

/** Control characters shown as '?', cut to STATUS_MAX_CHARS: it goes into log lines and answers. */
function oneLine(value: string): string {
  const shown = value.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  return shown.length > STATUS_MAX_CHARS ? `${shown.slice(0, STATUS_MAX_CHARS)}…` : shown;
}

const KEY = /^[A-Z][A-Z0-9_]*$/;

/**
 * The assignments of one datagram, or 'malformed': not UTF-8, a NUL, empty, or a line that is
 * no KEY=VALUE (systemd's own reading). An unknown key is fine: the protocol grows.
 */
export function parseNotification(bytes: Uint8Array): Notification | 'malformed' {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return 'malformed';
  }
  if (text.includes('\0')) return 'malformed';
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();  // a trailing newline is allowed
  if (lines.length === 0) return 'malformed';
  const out: Notification = {};
  for (const line of lines) {
    const eq = line.indexOf('=');
    if (eq <= 0 || !KEY.test(line.slice(0, eq))) return 'malformed';
    const key = line.slice(0, eq);
    const value = line.slice(eq + 1);
    if (key === 'READY') out.ready = value === '1';
    else if (key === 'STOPPING') out.stopping = value === '1';
    else if (key === 'RELOADING') out.reloading = value === '1';
    else if (key === 'STATUS') out.status = oneLine(value);
  }
  return out;
}

/** Datagrams read per turn of the event loop; more wait for the next (the socket is level-triggered). */
export const DATAGRAMS_PER_TURN = 64;
/** How far up the parent chain a sender is followed to find the main child. */
const MAX_DEPTH = 64;

/**
 * Whether pid is the main child or below it. A sender already gone (systemd-notify exits at once)
 * was seen in sexton's PID namespace, so it is one of the container's: it passes.
 */
export function inMainTree(pid: number, mainPid: number, procTrusted: boolean,
  read: (pid: number) => ReturnType<typeof readProcess> = readProcess): boolean {
  if (pid === mainPid) return true;
  if (!procTrusted || pid <= 1) return false;
  let at = read(pid);
  if (!at) return true;
  for (let depth = 0; at && depth < MAX_DEPTH; depth++) {
    if (at.ppid === mainPid) return true;
    if (at.ppid <= 1) return false;
    at = read(at.ppid);
  }
  return false;
}

export class Notifications {
  private readonly warned = new Set<Rejection | 'ready'>();

  constructor(private readonly host: Pick<Host, 'native' | 'procTrusted' | 'procRoot'>, private readonly log: Logger) {}

  /** NOTIFY_SOCKET in the environment the child inherits; before the spawn, so a failure is a StartError. */
  open(): void {
    const address = notifySocketAddress();
    const errno = this.host.native.openNotifySocket(address);
    if (errno !== 0) throw new StartError(`cannot open the sd_notify socket ${address} (${errnoName(errno)})`);
    if (process.env.NOTIFY_SOCKET) this.log.debug(
      `NOTIFY_SOCKET ${quote(process.env.NOTIFY_SOCKET)} is replaced by sexton's own for the child`);
    process.env.NOTIFY_SOCKET = address;
  }

  /** What is waiting on the socket (a turn's worth), judged: the lifecycle's inputs. */
  receiveWaiting(mainPid: number): Input[] {
    const datagrams = this.host.native.receiveNotifications(DATAGRAMS_PER_TURN);
    if (typeof datagrams !== 'number') return datagrams.flatMap((d) => this.judge(d, mainPid));
    this.log.error(`sd_notify: receive failed (${errnoName(datagrams)})`);
    return [];
  }

  private judge(d: Datagram, mainPid: number): Input[] {
    const out: Input[] = d.descriptors > 0 ? [
      { kind: 'app-rejected', why: 'descriptors' }] : [];  // closed; the text still counts
    const read = (pid: number) => readProcess(pid, this.host.procRoot);
    const parsed = d.truncated ? 'oversized' : d.pid === 0 || !inMainTree(d.pid, mainPid, this.host.procTrusted,
      read) ? 'foreign'
      : parseNotification(d.text);
    if (typeof parsed === 'object') {
      if (parsed.status !== undefined) this.log.debug(`sd_notify: STATUS=${quote(parsed.status)}`);
      return [...out, { kind: 'app-notified', notification: parsed }];
    }
    const line = `sd_notify: ignored a ${parsed} datagram ` +
      `from ${d.pid === 0 ? 'outside the PID namespace' : `pid ${d.pid}`} (${d.length} bytes)`;
    if (this.warned.has(parsed)) this.log.debug(line);
    else this.log.warn(`${line}; more are counted, not logged`);
    this.warned.add(parsed);
    return [...out, { kind: 'app-rejected', why: parsed }];
  }
}

/**
 * Whether the pod should get traffic: the answer to GET /readyz and `sexton status --ready`.
 * stopArrivals: the stop signal's native counter, which the handler moves the instant the signal
 * arrives, so readiness drops before JS has even heard of the stop.
 */
export function healthOf(s: Readonly<InitState>, readyWhen: ReadyWhen, stopArrivals: number): HealthState {
  const status = s.app.status === undefined ? '' : ` (app: ${s.app.status})`;
  const not = (why: string): HealthState => ({ live: true, ready: false, reason: `${why}${status}` });
  if (stopArrivals > 0) return not('stopping: the stop signal arrived');
  if (s.phase === 'starting') return not('starting');  // a failed start's status is no exit
  if (s.mainExit) return not('the main child has exited');
  if (s.app.stopping) return not('stopping: the app sent STOPPING=1');
  if (readyWhen === 'notify' && !s.app.ready) return not('waiting for READY=1 from the app');
  return { live: true, ready: true,
    reason: `${readyWhen === 'notify' ? 'the app sent READY=1' : 'the main child runs'}${status}` };
}

/** Readiness now, from the state and the stop signal's native counter (whatever the drain delay). */
export function readinessNow(s: Readonly<InitState>, options: Pick<Options, 'readyWhen' | 'stopSignal'>,
  native: Pick<Native, 'signalsReceived'>): HealthState {
  const stop = options.stopSignal;
  return healthOf(s, options.readyWhen, stop > 0 ? native.signalsReceived(stop) : 0);
}
