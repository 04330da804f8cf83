// The app's sd_notify datagrams (--ready-when notify): the socket the child inherits, and each
// datagram judged, as the lifecycle's inputs: who sent it (the main child's tree, or a stranger
// sharing the pod's network namespace), whether it fits, what it says.
import { notifySocketAddress } from '../config/addresses';
import { Datagram, Native, StartError } from '../platform/native';
import type { Logger } from '../platform/log';
import { errnoName } from '../platform/os-constants';
import { readProcess } from '../platform/procfs';
import { quote } from '../config/quote';
import { parseNotification, Rejection } from './sd-notify';
import type { Input } from './lifecycle';

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

  constructor(private readonly native: Native, private readonly log: Logger, private readonly procTrusted: boolean,
    private readonly procRoot: string) {}

  /** NOTIFY_SOCKET in the environment the child inherits; before the spawn, so a failure is a StartError. */
  open(): void {
    const address = notifySocketAddress();
    const errno = this.native.openNotifySocket(address);
    if (errno !== 0) throw new StartError(`cannot open the sd_notify socket ${address} (${errnoName(errno)})`);
    if (process.env.NOTIFY_SOCKET) this.log.debug(
      `NOTIFY_SOCKET ${quote(process.env.NOTIFY_SOCKET)} is replaced by sexton's own for the child`);
    process.env.NOTIFY_SOCKET = address;
  }

  /** What is waiting on the socket (a turn's worth), judged: the lifecycle's inputs. */
  receiveWaiting(mainPid: number): Input[] {
    const datagrams = this.native.receiveNotifications(DATAGRAMS_PER_TURN);
    if (typeof datagrams !== 'number') return datagrams.flatMap((d) => this.judge(d, mainPid));
    this.log.error(`sd_notify: receive failed (${errnoName(datagrams)})`);
    return [];
  }

  private judge(d: Datagram, mainPid: number): Input[] {
    const out: Input[] = d.descriptors > 0 ? [
      { kind: 'app-rejected', why: 'descriptors' }] : [];  // closed; the text still counts
    const read = (pid: number) => readProcess(pid, this.procRoot);
    const parsed = d.truncated ? 'oversized' : d.pid === 0 || !inMainTree(d.pid, mainPid, this.procTrusted,
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
