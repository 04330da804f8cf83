// How sexton leaves. The status: the main child's, as a shell reports it, after --remap-exit, and
// under --strict a failure when the child succeeded but its processes leaked. Then the last
// report (the stats file, the summary line) and the exit, which no failure of the report stops.
import { constants } from '../platform/os-constants';
import { EXIT } from '../config/exit-codes';
import type { Host } from '../platform/host';
import type { Logger } from '../platform/log';
import type { ZombieGroup } from '../platform/procfs';
import { MainExit, summarize, toReapStats } from '../report/stats';
import type { Lifecycle } from './lifecycle';

export interface ExitPolicy {
  remapExit: Set<number>;
  strict: boolean;
}

/** What --strict fails on: orphans sexton had to reap, zombies live parents held. */
export function leaks(orphansReaped: number, heldZombies: ZombieGroup[]): string[] {
  const out: string[] = [];
  if (orphansReaped > 0) out.push(`reaped ${orphansReaped} orphan(s) the child's processes left behind`);
  for (const g of heldZombies) out.push(`pid ${g.pid} (${g.command}) held ${g.zombies} zombie(s)`);
  return out;
}

/**
 * 128 + N for a signal (PID 1 cannot re-raise it on itself), else the code; remapped codes are
 * 0. `mainExit` undefined: the child outlived SIGKILL (state D) and sexton leaves without it.
 */
export function exitStatus(mainExit: MainExit | undefined, policy: ExitPolicy, leaked: string[]): {
  code: number; strictFailure: boolean } {
  const exit = mainExit ?? { exitCode: 0, signal: constants.signals.SIGKILL };
  const raw = exit.signal ? 128 + exit.signal : exit.exitCode;
  const code = policy.remapExit.has(raw) ? 0 : raw;
  const strictFailure = policy.strict && code === 0 && leaked.length > 0;
  return { code: strictFailure ? EXIT.strict : code, strictFailure };
}

/** What the exit reads and closes. */
export interface ExitParts {
  host: Pick<Host, 'native'>;
  options: ExitPolicy;
  log: Logger;
  lifecycle: Lifecycle;
  tree: { heldZombies: ZombieGroup[] };
  exporters: { close(): void };
  drain?: { finish(): void };
  /** tini and dumb-init leave with their main child: the orphans they reaped are no news. */
  leavesWithMainChild: boolean;
}

/** The end of the init's life, the main child's status passed on: the one way out once it ran. */
export function finish(p: ExitParts): never {
  const stats = toReapStats(p.host.native.stats());
  const { mainExit, survivorsKilled } = p.lifecycle.state;
  const leaked = leaks(stats.orphansReaped, p.tree.heldZombies);
  const { code, strictFailure } = exitStatus(mainExit, p.options, leaked);
  try {  // the report and the stats file may fail (out of descriptors); the exit may not
    p.drain?.finish();
    if (strictFailure) p.log.error(`strict: ${leaked.join('; ')}`);
    // The final stats file first: whoever reads the exit line may read the file at once.
    p.exporters.close();
    const noteworthy = p.lifecycle.shuttingDown || survivorsKilled > 0 || (stats.orphansReaped > 0
      && !p.leavesWithMainChild);
    const killed = survivorsKilled ? `; killed ${survivorsKilled} survivor(s)` : '';
    const line = `exiting with ${code}: ${summarize(stats)}${killed}`;
    (noteworthy ? p.log.warn : p.log.info).call(p.log, line, { exitCode: code, ...stats });
  } finally {
    p.host.native.exit(code);
  }
}

/** The child could not be started: sexton leaves with exitCode, the stats file written. */
export function failStart(p: ExitParts, message: string, exitCode: number): never {
  p.log.error(message);
  p.lifecycle.step({ kind: 'start-failed', exit: { exitCode, signal: 0 } });
  p.exporters.close();  // a CI job reads the stats file most when the command was broken
  return p.host.native.exit(exitCode);
}
