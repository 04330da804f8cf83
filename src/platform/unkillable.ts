// Why a process does not die: its state, where it sleeps in the kernel, the system call it is
// in, whether SIGKILL is already waiting for it, and the network or FUSE mount its working
// directory or open files are on. Shared by the init (what outlived SIGKILL) and `sexton scan
// --stuck` (the node's stuck processes).
//
// Every read here is one the kernel answers without waiting on the target: stat, status, wchan,
// syscall, mountinfo, fdinfo and readlink of cwd and fds. Nothing is opened or stat()ed through
// the suspect mount (that would hang the reader too), and the command line of a process in
// state D is not read: it lives in the process's memory, and reading it waits for its memory
// map lock, which a process stuck in a page fault on NFS holds.
import { readdirSync, readlinkSync } from 'node:fs';
import { readText as read } from './read-text';
import { commandOf, describeState, ProcessInfo } from './procfs';
import { syscallName } from './syscall-names';

export interface StuckMount {
  /** Where it is mounted, as the process sees it. */
  mountPoint: string;
  fstype: string;
  source: string;
  /** What of the process is on it: `cwd` or `fd N`. */
  via: string;
}

export interface StuckDetail {
  pid: number;
  command: string;
  state: string;
  /** The kernel function it sleeps in (/proc/PID/wchan); null when unreadable or not sleeping. */
  wchan: string | null;
  /** The system call it sits in; 'none' in none (a page fault), 'running', null when unreadable. */
  syscall: string | null;
  /** SIGKILL has been sent and not acted on yet. */
  killPending: boolean;
  mount: StuckMount | null;
}

/** File systems whose server can stop answering: what makes a D state last. */
const REMOTE_FS = /^(nfs4?|cifs|smb3|smbfs|ceph|glusterfs|9p|afs|lustre|virtiofs|fuse|fuseblk|fuse\..+)$/;
/** Open files looked at per process: a bounded cost whatever the process holds. */
export const MAX_FDS_LOOKED_AT = 256;

const SIGKILL_BIT = 1n << 8n;

function link(file: string): string | undefined {
  try {
    return readlinkSync(file);
  } catch {
    return undefined;
  }
}

/** SigPnd or ShdPnd of /proc/PID/status holds SIGKILL (signal 9, bit 8). */
export function killPendingIn(status: string): boolean {
  for (const m of status.matchAll(/^(?:SigPnd|ShdPnd):\s*([0-9a-f]+)$/gm)) {
    if ((BigInt(`0x${m[1]}`) & SIGKILL_BIT) !== 0n) return true;
  }
  return false;
}

/** /proc/PID/syscall: `NR args… sp pc`, `-1 sp pc` outside a call, or `running`. */
export function describeSyscall(text: string | undefined, arch = process.arch): string | null {
  const first = text?.trim().split(' ')[0];
  if (!first) return null;
  if (first === 'running') return 'running';
  if (first === '-1') return 'none';
  const nr = Number(first);
  return Number.isInteger(nr) ? (syscallName(nr, arch) ?? `#${nr}`) : null;
}

interface Mount {
  id: string;
  mountPoint: string;
  fstype: string;
  source: string;
}

const unescape = (text: string) =>
  text.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));

/** /proc/PID/mountinfo: `id parent maj:min root mountpoint options [optional…] - fstype source super`. */
export function parseMountinfo(text: string): Mount[] {
  const out: Mount[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    const dash = fields.indexOf('-', 6);
    if (dash < 0 || fields.length < dash + 3) continue;
    out.push({ id: fields[0], mountPoint: unescape(fields[4]), fstype: fields[dash + 1],
      source: unescape(fields[dash + 2]) });
  }
  return out;
}

/** The mount a path is on: the longest mount point that contains it (later mounts hide earlier). */
export function mountOf(mounts: Mount[], file: string): Mount | undefined {
  let best: Mount | undefined;
  for (const m of mounts) {
    const inside = m.mountPoint === '/' || file === m.mountPoint || file.startsWith(`${m.mountPoint}/`);
    if (inside && (!best || m.mountPoint.length >= best.mountPoint.length)) best = m;
  }
  return best;
}

const remote = (m: Mount | undefined): m is Mount => m !== undefined && REMOTE_FS.test(m.fstype);

/** The first network or FUSE mount the process's cwd, then its open files, are on. */
export function remoteMountOf(pid: number, procRoot = '/proc'): StuckMount | null {
  const text = read(`${procRoot}/${pid}/mountinfo`);
  if (!text) return null;
  const mounts = parseMountinfo(text);
  if (!mounts.some(remote)) return null;
  const cwd = link(`${procRoot}/${pid}/cwd`);
  const atCwd = cwd === undefined ? undefined : mountOf(mounts, cwd);
  if (remote(atCwd)) return { mountPoint: atCwd.mountPoint, fstype: atCwd.fstype, source: atCwd.source, via: 'cwd' };
  let fds: string[];
  try {
    fds = readdirSync(`${procRoot}/${pid}/fdinfo`).slice(0, MAX_FDS_LOOKED_AT);
  } catch {
    return null;
  }
  const byId = new Map(mounts.map((m) => [m.id, m]));
  for (const fd of fds) {
    // fdinfo's mnt_id names the mount exactly, where a path could be ambiguous.
    const id = /^mnt_id:\s*(\d+)$/m.exec(read(`${procRoot}/${pid}/fdinfo/${fd}`) ?? '')?.[1];
    const m = id === undefined ? undefined : byId.get(id);
    if (remote(m)) return { mountPoint: m.mountPoint, fstype: m.fstype, source: m.source, via: `fd ${fd}` };
  }
  return null;
}

/** One line's worth: `state D uninterruptible, wchan X, syscall Y, SIGKILL pending, on nfs4 …`. */
export function describeUnkillable(d: StuckDetail): string {
  const parts = [`state ${describeState(d.state)}`, `wchan ${d.wchan ?? '?'}`, `syscall ${d.syscall ?? '?'}`,
    d.killPending ? 'SIGKILL pending' : 'no SIGKILL pending'];
  if (d.mount) parts.push(`${d.mount.via} on ${d.mount.fstype} ${d.mount.source} at ${d.mount.mountPoint}`);
  return parts.join(', ');
}

/** Everything that says why `p` does not die; from what was read now, not at the scan. */
export function describeStuck(p: ProcessInfo, procRoot = '/proc'): StuckDetail {
  const status = read(`${procRoot}/${p.pid}/status`);
  const state = /^State:\s*(\S)/m.exec(status ?? '')?.[1] ?? p.state;
  const wchan = read(`${procRoot}/${p.pid}/wchan`)?.trim();
  return {
    pid: p.pid,
    command: state === 'D' ? p.name : commandOf(p, procRoot),
    state,
    wchan: wchan && wchan !== '0' ? wchan : null,
    syscall: describeSyscall(read(`${procRoot}/${p.pid}/syscall`)),
    killPending: status ? killPendingIn(status) : p.killPending,
    mount: remoteMountOf(p.pid, procRoot),
  };
}
