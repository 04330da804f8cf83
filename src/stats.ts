// Reap statistics: the native counters, with signals by name.
import type { NativeCounters } from './native';
import { signalName } from './signals';

export interface ReapStats {
  /** Every process sexton reaped, the main child included. */
  reaped: number;
  /** Reaped processes that were not the main child. */
  orphansReaped: number;
  signals: {
    received: Record<string, number>;
    /** By the signal delivered to the child, after rewrites. */
    forwarded: Record<string, number>;
    dropped: Record<string, number>;
  };
}

function byName(counts: number[]): Record<string, number> {
  const out: Record<string, number> = {};
  counts.forEach((count, n) => {
    if (count > 0) out[signalName(n)] = count;
  });
  return out;
}

export function toReapStats(counters: NativeCounters): ReapStats {
  return {
    reaped: counters.reaped,
    orphansReaped: counters.orphansReaped,
    signals: {
      received: byName(counters.received),
      forwarded: byName(counters.forwarded),
      dropped: byName(counters.dropped),
    },
  };
}

function describeCounts(counts: Record<string, number>): string {
  const parts = Object.entries(counts).map(([name, n]) => `${name}×${n}`);
  return parts.length === 0 ? 'none' : parts.join(' ');
}

/** One line for the exit summary. */
export function summarize(stats: ReapStats): string {
  const dropped = Object.keys(stats.signals.dropped).length > 0 ? `; dropped ${describeCounts(stats.signals.dropped)}` : '';
  return `reaped ${stats.reaped} (${stats.orphansReaped} orphans); forwarded ${describeCounts(stats.signals.forwarded)}${dropped}`;
}
