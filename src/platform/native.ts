// The one typed boundary to the native addon (native/*.cc): what each binding takes and gives.
// load-native.ts loads it and checks, before C, the arguments C cannot judge.

export interface SpawnResult {
  pid: number;
  /** errno of the child's failed execve (the child then exits 127), 0 when it ran. */
  execErrno: number;
  /** errno of fork itself, 0 when it worked. */
  forkErrno: number;
}

export type ReapEvent =
  /** lastChild: sexton had no other child left when the main child was reaped. */
  | { kind: 'main-exited'; pid: number; exitCode: number; signal: number; lastChild: boolean }
  | { kind: 'no-children'; pid: 0; exitCode: -1; signal: 0; lastChild: false }
  /**
   * Only after setReportOrphans(true). unreported: orphans reaped since the last report that got
   * none of their own, because JS was that many reports behind (native/reaper.h).
   */
  | { kind: 'orphan-reaped'; pid: number; exitCode: -1; signal: 0; lastChild: false; unreported: number };

/** Where the child goes: a group of its own (sexton, tini), a session of its own, or sexton's group (dumb-init). */
export const CHILD_SESSION = { ownGroup: 0, newSession: 1, sameGroup: 2 } as const;
export type ChildSession = (typeof CHILD_SESSION)[keyof typeof CHILD_SESSION];

/**
 * What the notifier thread hands to JS: a signal policy asked to hear of, an OOM kill in
 * sexton's memory cgroup, or word that notices were dropped while JS was behind (the native
 * counters still hold every signal).
 */
export interface Notice {
  /** notify: the sd_notify socket has datagrams waiting (receiveNotifications reads them). */
  kind: 'signal' | 'oom' | 'lost' | 'notify';
  /** The signal sexton received. */
  signal: number;
  /** DROP, NOTIFY_ONLY, or the signal number that was forwarded. */
  action: number;
  /** si_pid of the sender; 0 when it came from outside sexton's PID namespace. */
  sender: number;
  /** 0 when the forward was delivered, NO_CHILD_YET when there was no child to forward to, else the errno of kill. */
  errno: number;
}

/**
 * The native guarantee under the stop sequence (native/stop_deadline.h): `milliseconds` after
 * the first `signal`, whatever JS is doing, SIGKILL to what is left, `line` on stderr as is, and
 * _exit(exitCode).
 */
export interface StopDeadline {
  signal: number;
  milliseconds: number;
  exitCode: number;
  /** Written as given, at the deadline: formatted beforehand, since nothing is formatted then. */
  line: string;
  /** PID 1: kill(-1). Else the main child, its group (childGroup) and, walkProc, its descendants in /proc. */
  killNamespace: boolean;
  childGroup: boolean;
  walkProc: boolean;
  /** PID 1: ms JS has to answer the main child's exit before the addon sends TERM for it; 0: no watch. */
  mainExitAnswerMs: number;
  /** Written when the addon sends that TERM. */
  mainExitTermLine: string;
  /** Written at a deadline that follows the main child's exit (sexton leaves with the child's status). */
  mainExitLine: string;
  /**
   * 256 bytes: for each status the main child can leave with (its code, or 128 + its signal), the
   * status sexton leaves with at that deadline: --remap-exit's work, done before JS may be stuck.
   */
  mainExitCodes: Uint8Array;
}

export interface NativeCounters {
  reaped: number;
  orphansReaped: number;
  /** Indexed by signal number. */
  received: number[];
  forwarded: number[];
  dropped: number[];
  /** Orphans reaped by command name (comm), read just before each was reaped. */
  orphansByCommand: Record<string, number>;
  /** Orphans reaped without a name: a storm outran naming, or /proc is not this namespace's. */
  orphansUnnamed: number;
  /** Whether a SIGTERM went to the main child's process group (--pgroup): ProcessTree.terminate sends its members no second. */
  groupGotTerm: boolean;
}

/** Signal actions understood by setSignalAction; positive numbers forward as that signal. */
export const DROP = 0;
export const NOTIFY_ONLY = -1;
/** A notice's errno when there was no child to forward to: kept for the spawn, if still to come. */
export const NO_CHILD_YET = -2;

export interface Native {
  /**
   * Forks and execs `argv` (Buffers pass bytes unchanged), trying each candidate path in turn;
   * registers it with the reaper. The child sets its oom_score_adj first when one is given.
   */
  spawn(argv: (string | Buffer)[], candidates: (string | Buffer)[], oomScoreAdj?: number,
    session?: ChildSession): SpawnResult;
  /** Returns 0 or the errno of creating the thread. */
  startReaper(onEvent: (event: ReapEvent) => void): number;
  /** Returns 0 or the errno of creating the thread. */
  startNotifier(onNotice: (notice: Notice) => void): number;
  installSignalHandlers(): void;
  setSignalAction(signal: number, action: number): void;
  /** Whether every arrival of `signal` is a notice, or only failures and NOTIFY_ONLY ones. */
  setSignalNotify(signal: number, on: boolean): void;
  /** false when /proc is not sexton's PID namespace's: the reaper then names no orphan. */
  setProcTrusted(trusted: boolean): void;
  /** Prepares non-blocking writes to fd; returns how (for the logs). */
  openLogSink(fd: number): string;
  /** Bytes written to fd (2 by default, or 1 once opened), or -errno (-EAGAIN when the reader is not reading). Never
   * blocks. */
  writeLog(text: string, fd?: number): number;
  /** Unmaps clean file pages sexton is not using; returns the bytes of RSS released. */
  releaseFilePages(): number;
  /** Gives back the malloc heaps' free pages (glibc's malloc_trim); whether any went back. */
  trimMallocHeap(): boolean;
  /**
   * Threads that need a malloc arena from now on share the main one (glibc's M_ARENA_MAX); and
   * every arena's free top goes back past 64 KiB (a fixed trim threshold, no top pad).
   */
  shareOneMallocArena(): void;
  /** V8's most thorough GC (LowMemoryNotification), a few ms; false where V8 lacks it. */
  compactJsHeap(): boolean;
  /** V8 is told nobody waits on sexton's isolate: it favours memory over speed. False where V8 lacks it. */
  putIsolateInBackground(): boolean;
  /** Posts an 'oom' notice on each OOM kill in the memory cgroup at dir; 0 or errno. */
  watchOomEvents(dir: string, v2: boolean): number;
  setForwardToGroup(group: boolean): void;
  /** Once, before the spawn (the fields of a StopDeadline, checked by load-native.ts); a stop signal already counted
   * arms it at once. */
  setStopDeadline(signal: number, milliseconds: number, exitCode: number, line: string, killNamespace: boolean,
    childGroup: boolean, walkProc: boolean, mainExitAnswerMs: number, mainExitTermLine: string,
    mainExitLine: string, mainExitCodes: Uint8Array): void;
  /** JS has handled the main child's exit: the addon's watch on it becomes the stop deadline. */
  mainExitAnswered(): void;
  /** Returns 0 or the errno of the delivery. */
  signalMainChild(signal: number): number;
  /** kill(-1, signal); refused with EPERM unless sexton is PID 1. */
  signalEveryProcess(signal: number): number;
  /** Signals pid only if it still is the process that started at startTime (/proc stat field 22). */
  signalProcess(pid: number, signal: number, startTime: number): number;
  stats(): NativeCounters;
  becomeSubreaper(): boolean;
  isSubreaper(): boolean;
  setParentDeathSignal(signal: number): boolean;
  /** PR_SET_NAME on the calling thread (the main one: the process's comm); 15 bytes are kept. */
  setThreadName(name: string): boolean;
  signalRange(): { rtmin: number; rtmax: number };
  /** execve(argv[0], argv, env) after clearing close-on-exec on stdio; returns errno on failure. */
  execSelf(argv: (string | Buffer)[], env: (string | Buffer)[]): number;
  exit(code: number): never;
  // For the tini and dumb-init personalities (src/personalities):
  /** TIOCNOTTY; signalsSelf: sexton led the session and the foreground, so the kernel sends it a SIGHUP and a SIGCONT
   * (never forwarded: sexton is their sender). */
  detachControllingTerminal(): { errno: number; signalsSelf: boolean };
  /** After handling `signal`, SIGSTOP sexton itself (a no-op as PID 1). */
  setStopSelfAfter(signal: number, on: boolean): void;
  /** Reap events for every orphan reaped, not just the main child. */
  setReportOrphans(on: boolean): void;
  /** strerror(errno). */
  errorText(errno: number): string;
  /**
   * The TCP sockets of sexton's network namespace (inet_diag), at most `limit`: TCP_SOCKET_FIELDS
   * numbers each, or the errno. Call it through tcpSockets() (tcp-sockets.ts), which decodes the rows.
   */
  tcpSockets(limit: number): { truncated: boolean; fields: Float64Array } | number;
  /** SO_PEERCRED of a connected Unix socket's fd (pid in our PID namespace, 0 if not visible there), or the errno. */
  peerCredentials(fd: number): PeerCredentials | number;
  /**
   * Binds the sd_notify datagram socket at `address` ('@name' abstract, else a path) and has the
   * notifier thread post a 'notify' notice when datagrams wait; 0 or the errno. Once only.
   */
  openNotifySocket(address: string): number;
  /** Up to `max` waiting datagrams, never blocking; then the socket is watched again. Or the errno. */
  receiveNotifications(max: number): Datagram[] | number;
  /** How many times `signal` has arrived (the handler's counter, and one still pending for sexton). */
  signalsReceived(signal: number): number;
}

/** Every function the addon exports, as a value: loadNative checks the addon against it. */
export const NATIVE_FUNCTIONS = [
  'spawn', 'startReaper', 'startNotifier', 'installSignalHandlers', 'setSignalAction', 'setSignalNotify',
  'setProcTrusted', 'openLogSink', 'writeLog', 'releaseFilePages', 'trimMallocHeap', 'shareOneMallocArena',
  'compactJsHeap', 'putIsolateInBackground', 'watchOomEvents', 'setForwardToGroup', 'setStopDeadline',
  'mainExitAnswered', 'signalMainChild', 'signalEveryProcess', 'signalProcess',
  'stats', 'becomeSubreaper', 'isSubreaper', 'setParentDeathSignal', 'setThreadName', 'signalRange', 'execSelf', 'exit',
  'detachControllingTerminal', 'setStopSelfAfter', 'setReportOrphans', 'errorText', 'peerCredentials',
  'openNotifySocket', 'receiveNotifications', 'signalsReceived', 'tcpSockets',
] as const satisfies readonly (keyof Native)[];
/** Compiles only while NATIVE_FUNCTIONS names every key of Native. */
const everyKeyListed: Exclude<keyof Native, (typeof NATIVE_FUNCTIONS)[number]> extends never ? true : never = true;
void everyKeyListed;

/** One sd_notify datagram as received (native/notify_socket.h). */
export interface Datagram {
  /** The sender in sexton's PID namespace; 0 when it is not visible there (another container). */
  pid: number;
  uid: number;
  /** Its real length, even when cut. */
  length: number;
  /** Longer than NOTIFY_MAX_BYTES: text is empty and the datagram must be ignored. */
  truncated: boolean;
  /** Descriptors it carried, closed on arrival. */
  descriptors: number;
  text: Buffer;
}

/** The longest notification read (systemd's own limit); longer ones are counted and ignored. */
export const NOTIFY_MAX_BYTES = 4096;

export interface PeerCredentials {
  pid: number;
  uid: number;
  gid: number;
}

/** What sexton needs before it starts the child (a thread, a pipe) cannot be had. */
export class StartError extends Error {}

