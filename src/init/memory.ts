// sexton's side of the OOM killer. The kernel kills the process with the highest badness: its
// resident pages relative to the cgroup's limit, plus oom_score_adj scaled to that limit.
// sexton cannot lower its own oom_score_adj without CAP_SYS_RESOURCE, so it does what needs no
// privilege: it releases the file pages it is not using, and it starts its child (and so the
// whole app) with an oom_score_adj just high enough that any app process outranks sexton.
// docs/operations.md shows the arithmetic and how it combines with Kubernetes' QoS values.
import { type Logger, VERBOSE } from '../platform/log';
import type { Host } from '../platform/host';
import { cgroupChargeBytes, findMemoryCgroup, MemoryCgroup, oomKillCount, ownMemory } from '../platform/memory-cgroup';
import type { Timers } from './loop';
import { OOM_SCORE_ADJ_MAX, type OomPolicy } from '../config/option-values';

/**
 * The child's oom_score_adj under a policy. 'auto': sexton's own value plus the smallest step
 * that makes the kernel pick any app process, however small, before sexton: the step must
 * outweigh sexton's resident bytes as a share of the limit (in thousandths, rounded up, plus
 * one against ties). Never above the kernel's maximum; undefined means "inherit".
 */
export function childOomScoreAdj(policy: OomPolicy, own: number, residentBytes: number,
  limitBytes: number): number | undefined {
  if (policy === 'off') return undefined;
  if (policy !== 'auto') return policy;
  const step = Math.ceil((residentBytes * 1000) / limitBytes) + 1;
  return Math.min(OOM_SCORE_ADJ_MAX, own + step);
}

/** What sexton may fault in between the spawn and its release once the exporters listen (~21 → ~25 MB measured). */
export const GROWTH_BEFORE_RELEASE_BYTES = 8 * 2 ** 20;

/**
 * Whether sexton gives back the file pages start-up faulted in (the node binary's code, 35 of its 42 MiB) before
 * the spawn, ~7 ms of the start, not once the exporters listen: where the child's step cannot make every app process
 * outrank sexton as it is (capped at the kernel's maximum, as a 32 MiB limit caps it; a fixed value or 'off'; a
 * resident size not read). An app that fills the limit at once then meets ~21 MiB, not ~42 (docs/operations.md).
 */
export function releaseBeforeSpawn(policy: OomPolicy, childAdj: number | undefined, residentBytes: number): boolean {
  return policy !== 'auto' || childAdj === OOM_SCORE_ADJ_MAX || residentBytes === 0;
}

/** How long after an OOM event the kill count is read again (the event may come first). */
const OOM_RECHECK_MS = 100;

/** How long after activity sexton gives back the file pages it faulted in. */
const RELEASE_DELAY_MS = 1000;

const COMPACT_EVERY_MS = 60_000;  // the least time between two compactions of the JS heap
/** Quiet after the last answer to a client before what a burst of them left is given back. */
const SETTLE_MS = 2000;
/** Answers since the last settling that make a burst, whose garbage is worth a compaction. */
const BURST_ANSWERS = 50;
/** The least time between two compactions after bursts. */
const BURST_COMPACT_EVERY_MS = 10_000;

/**
 * Whether settling after `answers` answers compacts the JS heap. A burst grows V8's young
 * generation and leaves garbage that only a full GC frees: 200 clients for 10 s left RssAnon
 * 5.6 MiB over idle for good (bench/measure/report-load.mjs) until a compaction gave it back.
 */
export function compactionDue(answers: number, sinceLastCompactionMs: number): boolean {
  if (sinceLastCompactionMs >= COMPACT_EVERY_MS) return true;
  return answers >= BURST_ANSWERS && sinceLastCompactionMs >= BURST_COMPACT_EVERY_MS;
}

/**
 * The guard's timers ('oom-recheck', 'oom-release', 'release-soon', 'settle') are the loop's: it
 * starts them, and the supervisor hands each firing back to onTimer.
 */
export class MemoryGuard {
  private cgroup?: MemoryCgroup;
  private oomKillsAtStart = 0;
  private killsReported = 0;
  private lastCompaction = -Infinity;
  private answers = 0;
  private lastAnswer = 0;

  constructor(private readonly host: Host, private readonly log: Logger, private readonly policy: OomPolicy,
    private readonly timers: Timers) {}

  /** OOM kills in sexton's memory cgroup since it started; undefined where unreadable. */
  oomKills(): number | undefined {
    const now = this.cgroup && oomKillCount(this.cgroup);
    return now === undefined ? undefined : now - this.oomKillsAtStart;
  }

  /**
   * Just before the spawn: the child's oom_score_adj (undefined: inherit), from sexton's resident set and what it may
   * fault in before its release, as the kernel's badness weighs it; file pages given back first where that step would
   * not protect sexton. The line also gives the cgroup's charge, another thing: pages of the node binary that another
   * cgroup read first (on v2, the node's page cache) are resident here and charged there.
   */
  prepareSpawn(): number | undefined {
    const { oomScoreAdj: own, residentBytes: resident, totalBytes } = ownMemory(this.host.procRoot);
    const limit = Math.min(this.cgroup?.limitBytes ?? Infinity, totalBytes);
    const adj = childOomScoreAdj(this.policy, own, resident + GROWTH_BEFORE_RELEASE_BYTES, limit);
    // The line costs a cgroup read and its formatting at every start: made only where it is shown (-v).
    if (adj !== undefined && this.log.verbosity >= VERBOSE) {
      const charged = this.cgroup && cgroupChargeBytes(this.cgroup);
      const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
      const charge = charged === undefined ? '' : `, the cgroup charged ${mib(charged)} MiB`;
      const weighed = `resident ${mib(resident)} MiB${charge}, of a ${mib(limit)} MiB limit`;
      this.log.info(`child oom_score_adj ${adj} (sexton's ${own}; ${weighed})`);
    }
    if (!releaseBeforeSpawn(this.policy, adj, resident)) return adj;
    // The pages stay in the page cache: the code sexton runs next faults back in without I/O.
    const started = this.host.clock.monotonic();
    const given = (this.host.native.releaseFilePages() / 2 ** 20).toFixed(1);
    const ms = (this.host.clock.monotonic() - started).toFixed(2);
    this.log.debug(`gave back ${given} MiB of file pages before the spawn in ${ms} ms`);
    return adj;
  }

  /** Finds sexton's memory cgroup and watches it for OOM kills; quiet where it cannot be watched. */
  watch(): void {
    this.cgroup = findMemoryCgroup(this.host.cgroupRoot, this.host.procRoot);
    this.oomKillsAtStart = (this.cgroup && oomKillCount(this.cgroup)) ?? 0;
    if (!this.cgroup) return;
    const errno = this.host.native.watchOomEvents(this.cgroup.dir, this.cgroup.v2);
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
    // Handling the event faults code back in, 64 KiB around each page touched (the kernel's
    // fault-around): measured 17 MiB of file pages at the next kill of a 20 MiB cgroup, which
    // made sexton the victim. Unmapped again once the event is handled, the cgroup is still near
    // its limit and more kills may follow: sexton must not be the largest then.
    this.timers.start('oom-release', 0, { soon: true });
    this.timers.start('oom-recheck', OOM_RECHECK_MS);
  }

  /** One of the guard's timers fired. */
  onTimer(timer: 'oom-recheck' | 'oom-release' | 'release-now' | 'release-soon' | 'settle'): void {
    if (timer === 'oom-recheck') this.reportNewKills();
    else if (timer === 'oom-release') this.host.native.releaseFilePages();
    else if (timer === 'release-now' || timer === 'release-soon') this.releaseNow();
    else this.settle();
  }

  private reportNewKills(): void {
    const kills = this.oomKills();
    if (kills !== undefined && kills <= this.killsReported) return;
    this.killsReported = kills ?? this.killsReported;
    const limit = this.cgroup?.limitBytes;
    const of = limit ? ` (limit ${(limit / 2 ** 20).toFixed(0)} MiB)` : '';
    this.log.warn(`the OOM killer ended a process in sexton's memory cgroup${of}; ${kills ?? '?'} OOM kill(s) so far`,
      { oomKills: kills });
  }

  /** Gives back the memory sexton is not using (about 3 ms, 10-14 with a compaction: not on the start path). */
  releaseNow(): void {
    const now = this.host.clock.monotonic();  // a clock step must not stop it
    if (now - this.lastCompaction >= COMPACT_EVERY_MS) this.compact(now);
    this.host.native.releaseFilePages();
    // Each status query or scrape leaves freed malloc memory (read buffers, the parser's)
    // resident in glibc's arenas, scattered so that free() alone returns none of it: RssAnon
    // crept 0.2-0.3 MiB/min under a query every 10 s until trimmed (bench/RESULTS.md).
    this.host.native.trimMallocHeap();
  }

  /**
   * A status query or scrape leaves ~0.1 MiB of JS garbage; what survives a scavenge is only
   * freed by a full GC, which V8 defers until the heap is many times larger: RssAnon crept for
   * an hour under a query every 10 s (bench/RESULTS.md). A compaction costs 7-11 ms of the JS
   * thread (signals are forwarded by the addon meanwhile), so at most one a minute. The first
   * comes with the release once the exporters listen, ~130 ms after start (idle RssAnon 6.3 MiB, not 6.7).
   */
  private compact(now: number): void {
    this.lastCompaction = now;
    this.host.native.compactJsHeap();
  }

  /**
   * One answer to a client (a status query, a scrape). Once they stop for SETTLE_MS, what they
   * left is given back, with a compaction after a burst. An idle sexton has no timer.
   */
  afterAnswer(): void {
    // Told nobody waits on it, V8 favours memory: a burst's peak is 20 MiB, not 50-90. Not at start:
    // so backgrounded, an idle sexton was once woken by V8's memory reducer; a client is activity.
    this.host.native.putIsolateInBackground();
    this.answers++;
    this.lastAnswer = this.host.clock.monotonic();
    this.timers.start('settle', SETTLE_MS);
  }

  private settle(): void {
    const now = this.host.clock.monotonic();
    const quietFor = now - this.lastAnswer;
    if (quietFor < SETTLE_MS) return this.timers.start('settle', SETTLE_MS - quietFor);
    const sinceCompaction = now - this.lastCompaction;
    if (compactionDue(this.answers, sinceCompaction)) {
      this.compact(now);
      this.answers = 0;
    } else if (this.answers >= BURST_ANSWERS) {
      // A burst too soon after the last compaction: its heap (15 MiB after 100 clients for 5 s)
      // stayed until some later answer. One more settling once the compaction is due, this
      // burst's own, not an idle wake-up: nothing is armed once it has run.
      this.timers.start('settle', BURST_COMPACT_EVERY_MS - sinceCompaction);
    } else {
      this.answers = 0;
    }
    this.host.native.releaseFilePages();
    this.host.native.trimMallocHeap();
  }

  /** Gives back file pages faulted in by recent work, once things are quiet for a moment. */
  releaseSoon(): void {
    this.timers.start('release-soon', RELEASE_DELAY_MS);
  }
}
