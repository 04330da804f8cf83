// sexton's side of the OOM killer. The kernel kills the process with the highest badness: its
// resident pages relative to the cgroup's limit, plus oom_score_adj scaled to that limit.
// sexton cannot lower its own oom_score_adj without CAP_SYS_RESOURCE, so it does what needs no
// privilege: it releases the file pages it is not using, and it starts its child (and so the
// whole app) with an oom_score_adj just high enough that any app process outranks sexton.
// docs/operations.md shows the arithmetic and how it combines with Kubernetes' QoS values.
import { readFileSync } from 'node:fs';
import type { Logger } from '../platform/log';
import type { Native } from '../platform/native';
import { OOM_SCORE_ADJ_MAX, type OomPolicy } from '../config/options';

export interface MemoryCgroup {
  dir: string;
  v2: boolean;
  /** undefined when unlimited. */
  limitBytes?: number;
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'latin1');
  } catch {
    return undefined;
  }
}

/**
 * sexton's memory cgroup, v1 or v2. Inside a container /proc/self/cgroup may name a path the
 * container's /sys/fs/cgroup does not have (no cgroup namespace): then the mount's root is it.
 */
export function findMemoryCgroup(root = '/sys/fs/cgroup', procRoot = '/proc'): MemoryCgroup | undefined {
  const lines = (read(`${procRoot}/self/cgroup`) ?? '').split('\n');
  const v1 = lines.find((l) => l.split(':')[1]?.split(',').includes('memory'));
  const v2 = lines.find((l) => l.startsWith('0::'));
  const candidates: [string, boolean][] = [];
  if (v1) candidates.push([`${root}/memory${v1.split(':')[2]}`, false], [`${root}/memory`, false]);
  if (v2) candidates.push([`${root}${v2.slice(3)}`, true], [root, true]);
  for (const [dir, isV2] of candidates) {
    const limit = read(`${dir}/${isV2 ? 'memory.max' : 'memory.limit_in_bytes'}`);
    if (limit === undefined) continue;
    const bytes = Number(limit.trim());
    // v1 writes "no limit" as a huge page-aligned number, v2 as "max".
    return { dir, v2: isV2, limitBytes: Number.isFinite(bytes) && bytes < 2 ** 62 ? bytes : undefined };
  }
  return undefined;
}

/** The cgroup's count of OOM kills (memory.events or memory.oom_control), where readable. */
export function oomKillCount(cgroup: MemoryCgroup): number | undefined {
  const text = read(`${cgroup.dir}/${cgroup.v2 ? 'memory.events' : 'memory.oom_control'}`);
  const m = text && /^oom_kill (\d+)$/m.exec(text);
  return m ? Number(m[1]) : undefined;
}

/**
 * The child's oom_score_adj under a policy. 'auto': sexton's own value plus the smallest step
 * that makes the kernel pick any app process, however small, before sexton: the step must
 * outweigh sexton's resident bytes as a share of the limit (in thousandths, rounded up, plus
 * one against ties). Never above the kernel's maximum; undefined means "inherit".
 */
export function childOomScoreAdj(policy: OomPolicy, own: number, residentBytes: number, limitBytes: number): number | undefined {
  if (policy === 'off') return undefined;
  if (policy !== 'auto') return policy;
  const step = Math.ceil((residentBytes * 1000) / limitBytes) + 1;
  return Math.min(OOM_SCORE_ADJ_MAX, own + step);
}

function ownResidentBytes(): number {
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(read('/proc/self/status') ?? '');
  return m ? Number(m[1]) * 1024 : 0;
}

function totalMemoryBytes(): number {
  const m = /^MemTotal:\s+(\d+) kB$/m.exec(read('/proc/meminfo') ?? '');
  return m ? Number(m[1]) * 1024 : Number.MAX_SAFE_INTEGER;
}

/** How long after an OOM event the kill count is read again (the event may come first). */
const OOM_RECHECK_MS = 100;

/** How long after activity sexton gives back the file pages it faulted in. */
const RELEASE_DELAY_MS = 1000;

/** The least time between two compactions of the JS heap. */
const COMPACT_EVERY_MS = 60_000;
/** Quiet after the last answer to a client before what a burst of them left is given back. */
const SETTLE_MS = 2000;
/** Answers since the last settling that make a burst, whose garbage is worth a compaction. */
const BURST_ANSWERS = 50;
/** The least time between two compactions after bursts. */
const BURST_COMPACT_EVERY_MS = 10_000;

const monotonicMs = () => Number(process.hrtime.bigint() / 1_000_000n);

/**
 * Whether settling after `answers` answers compacts the JS heap. A burst grows V8's young
 * generation and leaves garbage that only a full GC frees: 200 clients for 10 s left RssAnon
 * 5.6 MiB over idle for good (bench/measure/report-load.mjs) until a compaction gave it back.
 */
export function compactionDue(answers: number, sinceLastCompactionMs: number): boolean {
  if (sinceLastCompactionMs >= COMPACT_EVERY_MS) return true;
  return answers >= BURST_ANSWERS && sinceLastCompactionMs >= BURST_COMPACT_EVERY_MS;
}

export class MemoryGuard {
  private readonly cgroup = findMemoryCgroup();
  private readonly oomKillsAtStart: number;
  private releaseTimer?: NodeJS.Timeout;
  private recheckTimer?: NodeJS.Timeout;
  private killsReported = 0;
  private lastCompaction = -Infinity;
  private answers = 0;
  private lastAnswer = 0;
  private settleTimer?: NodeJS.Timeout;
  private oomReleasePending = false;

  constructor(private readonly native: Native, private readonly log: Logger, private readonly policy: OomPolicy) {
    this.oomKillsAtStart = (this.cgroup && oomKillCount(this.cgroup)) ?? 0;
  }

  /** OOM kills in sexton's memory cgroup since it started; undefined where unreadable. */
  oomKills(): number | undefined {
    const now = this.cgroup && oomKillCount(this.cgroup);
    return now === undefined ? undefined : now - this.oomKillsAtStart;
  }

  /** The oom_score_adj to start the child with (undefined: inherit). Call just before spawn. */
  childOomScoreAdj(): number | undefined {
    const own = Number(read('/proc/self/oom_score_adj') ?? 0) || 0;
    const limit = Math.min(this.cgroup?.limitBytes ?? Infinity, totalMemoryBytes());
    const resident = ownResidentBytes();
    const adj = childOomScoreAdj(this.policy, own, resident, limit);
    if (adj !== undefined) {
      this.log.info(`child oom_score_adj ${adj} (sexton's ${own}; sexton holds ${(resident / 2 ** 20).toFixed(0)} MiB of a ${(limit / 2 ** 20).toFixed(0)} MiB limit)`);
    }
    return adj;
  }

  /** Watches for OOM kills; onKill runs on each. Quiet where the cgroup cannot be watched. */
  watch(): void {
    if (!this.cgroup) return;
    const errno = this.native.watchOomEvents(this.cgroup.dir, this.cgroup.v2);
    if (errno !== 0) this.log.debug(`OOM kills are counted but not watched live (${this.cgroup.dir}: errno ${errno})`);
  }

  /**
   * Logs the OOM kills the kernel made in sexton's cgroup since the last line. cgroup v1's
   * event fires each time a charge fails under OOM, many times per kill, and sometimes before
   * the kill is counted: so lines follow the count, and the count is read once more a moment
   * later. Where the count cannot be read, each event gets a line.
   */
  onOomKill(): void {
    this.reportNewKills();
    this.releaseAfterOom();
    if (this.recheckTimer) return;
    this.recheckTimer = setTimeout(() => {
      this.recheckTimer = undefined;
      this.reportNewKills();
    }, OOM_RECHECK_MS);
    this.recheckTimer.unref();
  }

  /**
   * Handling the event faults code back in, 64 KiB around each page touched (the kernel's
   * fault-around): measured 17 MiB of file pages at the next kill of a 20 MiB cgroup, which
   * made sexton the victim. Unmapped again once the event is handled, the cgroup is still near
   * its limit and more kills may follow: sexton must not be the largest then.
   */
  private releaseAfterOom(): void {
    if (this.oomReleasePending) return;
    this.oomReleasePending = true;
    setImmediate(() => {
      this.oomReleasePending = false;
      this.native.releaseFilePages();
    });
  }

  private reportNewKills(): void {
    const kills = this.oomKills();
    if (kills !== undefined && kills <= this.killsReported) return;
    this.killsReported = kills ?? this.killsReported;
    const limit = this.cgroup?.limitBytes;
    const of = limit ? ` (limit ${(limit / 2 ** 20).toFixed(0)} MiB)` : '';
    this.log.warn(`the OOM killer ended a process in sexton's memory cgroup${of}; ${kills ?? '?'} OOM kill(s) so far`, { oomKills: kills });
  }

  /**
   * Unmaps the file pages start-up faulted in (the node binary's code, 35 of sexton's 42 MiB
   * resident then) just before the spawn: an app that fills a small limit at once meets a PID 1
   * of ~21 MiB instead of ~42, and the kernel takes a worker (issue 23; docs/operations.md has
   * the floor). ~3 ms of every start (bench/RESULTS.md). Nothing else is worth it here: a heap
   * compaction gives back 0.4 MiB for 7-11 ms, a malloc trim 0.1 MiB; the pages stay in the page
   * cache, so the code sexton runs next faults back in without I/O.
   */
  releaseBeforeSpawn(): void {
    const started = process.hrtime.bigint();
    const bytes = this.native.releaseFilePages();
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    this.log.debug(`gave back ${(bytes / 2 ** 20).toFixed(1)} MiB of file pages before the spawn in ${ms.toFixed(2)} ms`);
  }

  /** Gives back the memory sexton is not using (about 3 ms, 10-14 with a compaction: not on the start path). */
  releaseNow(): void {
    this.compactJsHeapNowAndThen();
    this.native.releaseFilePages();
    // Each status query or scrape leaves freed malloc memory (read buffers, the parser's)
    // resident in glibc's arenas, scattered so that free() alone returns none of it: RssAnon
    // crept 0.2-0.3 MiB/min under a query every 10 s until trimmed (bench/RESULTS.md, issue 16).
    this.native.trimMallocHeap();
  }

  /**
   * A status query or scrape leaves ~0.1 MiB of JS garbage; what survives a scavenge is only
   * freed by a full GC, which V8 defers until the heap is many times larger: RssAnon crept for
   * an hour under a query every 10 s (bench/RESULTS.md, issue 16). A compaction costs 7-11 ms
   * of the JS thread (signals are forwarded by the addon meanwhile), so at most one a minute.
   * The first comes with the release once the exporters listen, ~130 ms after start: idle
   * RssAnon 6.3 MiB instead of 6.7 (measured); a TERM in those 10 ms waits for it.
   */
  private compactJsHeapNowAndThen(): void {
    const now = Number(process.hrtime.bigint() / 1_000_000n);  // monotonic: a clock step must not stop it
    if (now - this.lastCompaction < COMPACT_EVERY_MS) return;
    this.lastCompaction = now;
    this.native.compactJsHeap();
  }

  /**
   * One answer to a client (a status query, a scrape). Once they stop for SETTLE_MS, what they
   * left is given back, with a compaction after a burst. An idle sexton has no timer.
   */
  afterAnswer(): void {
    this.answers++;
    this.lastAnswer = monotonicMs();
    if (!this.settleTimer) this.settleTimer = setTimeout(() => this.settle(), SETTLE_MS).unref();
  }

  private settle(): void {
    const quietFor = monotonicMs() - this.lastAnswer;
    if (quietFor < SETTLE_MS) {
      this.settleTimer = setTimeout(() => this.settle(), SETTLE_MS - quietFor).unref();
      return;
    }
    this.settleTimer = undefined;
    const now = monotonicMs();
    const sinceCompaction = now - this.lastCompaction;
    if (compactionDue(this.answers, sinceCompaction)) {
      this.lastCompaction = now;
      this.native.compactJsHeap();
      this.answers = 0;
    } else if (this.answers >= BURST_ANSWERS) {
      // A burst too soon after the last compaction: its heap (15 MiB after 100 clients for 5 s)
      // stayed until some later answer. One more settling once the compaction is due, this
      // burst's own, not an idle wake-up: nothing is armed once it has run.
      this.settleTimer = setTimeout(() => this.settle(), BURST_COMPACT_EVERY_MS - sinceCompaction).unref();
    } else {
      this.answers = 0;
    }
    this.native.releaseFilePages();
    this.native.trimMallocHeap();
  }

  /** Gives back file pages faulted in by recent work, once things are quiet for a moment. */
  releaseSoon(): void {
    if (this.releaseTimer) return;
    this.releaseTimer = setTimeout(() => {
      this.releaseTimer = undefined;
      this.releaseNow();
    }, RELEASE_DELAY_MS);
    this.releaseTimer.unref();
  }
}
