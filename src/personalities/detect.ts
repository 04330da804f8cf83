// Which tool sexton was asked to be. Imported by first-handlers.ts, so it imports only the
// tools list, which imports nothing.
//
// Under its `#!/bin/sh` line (which execs node "$0") a link to dist/sexton.js reaches Node as its script path:
// process.argv[1] keeps the link's name (Node resolves the link only to load the file), while
// process.argv0 is "node". A build that is its own executable would show the link in argv0.
import { isTool } from '../config/tools';

export const PERSONALITIES = ['tini', 'dumb-init'] as const;
export type PersonalityName = (typeof PERSONALITIES)[number];

const baseName = (file: string | undefined) => (file ?? '').slice((file ?? '').lastIndexOf('/') + 1);
export const isPersonality = (name: string): name is PersonalityName => (PERSONALITIES as readonly string[]).includes(
  name);

/**
 * The personality asked for: the name sexton was started as, else SEXTON_PERSONALITY (any
 * value other than sexton's own name or empty, which then has to be checked). Every tool word
 * (config/tools.ts) keeps its meaning under the variable; a link named tini runs `status` as
 * tini would, as its child.
 */
export function requestedPersonality(argv: readonly string[], argv0: string,
  env: NodeJS.ProcessEnv): string | undefined {
  for (const name of [baseName(argv[1]), baseName(argv0)]) if (isPersonality(name)) return name;
  const wanted = env.SEXTON_PERSONALITY?.trim();
  if (!wanted || wanted === 'sexton') return undefined;
  if (isTool(argv[2])) return undefined;
  return wanted;
}
