// What a run proved, read two ways: did the app leak (live parents that never wait, which no
// init can fix), and did the init fail (zombies still there when PID 1 exited or was killed).
import { HARNESS_EXIT } from '../config/exit-codes';
import type { Pid1Report } from './pid1';

/**
 * - `clean`: no live parent held a zombie, and none was left when PID 1 exited.
 * - `app-leaks`: live parents held zombies while the app ran, and the init cleaned up at exit.
 * - `init-failed`: zombies were left when PID 1 exited, or PID 1 had to be killed.
 * - `not-run`: PID 1 never showed up, so nothing was proven.
 */
export type Verdict = 'clean' | 'app-leaks' | 'init-failed' | 'not-run';

/** `sexton harness` exit codes, one per verdict (2 is bad input). */
const { usage: _usage, ...verdictCodes } = HARNESS_EXIT;
export const VERDICT_EXIT_CODES: Record<Verdict, number> = verdictCodes;

export function verdictOf(
  report: Pick<Pid1Report, 'ran' | 'timedOut' | 'zombiesLeftAtExit' | 'zombieParents'>,
): Verdict {
  if (!report.ran) return 'not-run';
  if (report.timedOut || report.zombiesLeftAtExit > 0) return 'init-failed';
  return report.zombieParents.length > 0 ? 'app-leaks' : 'clean';
}

export interface LeakCheck {
  /**
   * 'pod' (default): fails on any leak, the app's live parents included.
   * 'init': fails only when the init failed (zombies left at exit, PID 1 killed, or never ran);
   * live parents that held zombies while the app ran are the app's bug, and pass.
   */
  scope?: 'pod' | 'init';
  maxPeakZombies?: number;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Throws, saying what leaked and whose fault it was, unless the run passes the chosen reading. */
export function assertNoZombieLeak(
  report: Pid1Report,
  { scope = 'pod', maxPeakZombies = Infinity }: LeakCheck = {},
): void {
  const problems: string[] = [];
  if (!report.ran) {
    const why = report.notRunReason ?? (report.stderr.trim() || `exit ${report.exitCode}`);
    problems.push(`PID 1 never ran, so nothing was proven: ${why}`);
  }
  if (report.timedOut) {
    problems.push(`init failed: PID 1 did not exit and was killed, with ${report.zombiesLeftAtExit} zombie(s) left`);
  } else if (report.zombiesLeftAtExit > 0) {
    problems.push(`init failed: ${report.zombiesLeftAtExit} zombie(s) were left when PID 1 exited`);
  }
  if (report.peakZombies > maxPeakZombies) {
    problems.push(`${report.peakZombies} zombies at once (allowed ${maxPeakZombies})`);
  }
  if (scope === 'pod') {
    for (const p of report.zombieParents) {
      problems.push(
        `app leaks: pid ${p.pid} (${p.command}) held ${p.zombies} zombie(s) ` +
          `for up to ${seconds(p.oldestMs)} and never waited`,
      );
    }
  }
  if (problems.length > 0) {
    throw new Error(
      `zombie leak under init '${report.init}' running '${report.command.join(' ')}':\n  ${problems.join('\n  ')}`,
    );
  }
}
