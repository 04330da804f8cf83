// How a personality (src/personalities) changes the supervisor's lifecycle: tini and dumb-init
// leave as soon as their main child does, and word some events their own way. sexton has none.

export interface SupervisorHooks {
  /** The main child was reaped: return true to exit at once with its status (no grace period). */
  mainExited?(pid: number): boolean;
  /**
   * Each orphan reaped, once native.setReportOrphans(true) asked for them; `unreported` more
   * were reaped before it with no report of their own (JS had fallen behind).
   */
  orphanReaped?(pid: number, unreported: number): void;
  /** How a command that could not be executed is reported, and the status sexton exits with. */
  execFailure?(command: string, errno: number): { message: string; exitCode: number } | undefined;
}
