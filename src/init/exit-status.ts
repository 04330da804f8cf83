// The status sexton exits with: the main child's, as a shell reports it, after --remap-exit,
// and under --strict a failure when the child succeeded but its processes leaked.
import { constants } from '../platform/os-constants';
import { EXIT } from '../config/exit-codes';
import type { ZombieGroup } from '../platform/procfs';
import type { MainExit } from '../report/stats';

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
