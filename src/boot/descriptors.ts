// RLIMIT_NOFILE counts sexton's own descriptors only, and what sexton opens after its start is
// known: so a limit too low for them is found before the child runs, and said in one line,
// instead of a stop sequence whose /proc scan fails with EMFILE when it matters.
import { closeSync, openSync } from 'node:fs';
import { StartError } from '../platform/native';
import type { Options } from '../config/options';
import { sameAddress } from '../config/addresses';

/** Held for good: the notifier's pipe (2) and its lost-notice eventfd, the OOM eventfd, the log
 * sink, the child's pidfd. */
const HELD = 6;
/** Open for a moment: the spawn's report pipe, later a /proc scan (a directory and a file). */
const PASSING = 2;

/**
 * Descriptors sexton needs beyond those open when it starts; a listener also answers one client.
 * The metrics server also needs one for a moment to refuse a client; its cap of connections
 * shrinks to what is left after STOP_RESERVE (never below one: report/exporters/http-server.ts).
 * The health listener is one more such server, unless it shares the metrics port.
 */
export function descriptorsNeeded(options: Pick<Options,
  'statusSocket' | 'metrics' | 'health' | 'readyWhen' | 'statsFile'>): number {
  const metrics = options.metrics ? 3 : 0;
  const sharedPort = options.health && options.metrics && sameAddress(options.health, options.metrics);
  const health = options.health && !sharedPort ? 3 : 0;
  return HELD + PASSING + (options.statusSocket.length > 0 ? 2 : 0) + metrics + health + (
    options.readyWhen === 'notify' ? 1 : 0) + (options.statsFile ? 1 : 0);
}

/** Throws a StartError when fewer than `needed` more descriptors can be opened. */
export function checkDescriptorRoom(needed: number): void {
  const held: number[] = [];
  try {
    while (held.length < needed) held.push(openSync('/', 'r'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EMFILE') return;  // not the limit: nothing to say
    throw new StartError(
      `RLIMIT_NOFILE leaves sexton ${held.length} free file descriptor(s) and it needs ${needed}: raise it (ulimit ` +
        `-n)`);
  } finally {
    for (const fd of held) closeSync(fd);
  }
}
