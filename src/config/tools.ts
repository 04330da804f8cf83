// The one list of the commands that are not the init: `sexton probe` and `sexton status`, native
// executables (boot/native-tool.ts), and the tools with a bundle of their own next to it, loaded
// only when asked for and free to use child_process. first-handlers.ts installs no signal
// handlers for any of them; cli.ts runs them; under SEXTON_PERSONALITY they keep their meaning
// (personalities/detect.ts). It imports nothing: the first module the init evaluates reads it.

/** Tool word → [its bundle in dist/, the function it exports]. */
export const TOOL_BUNDLES = new Map<string, [file: string, main: string]>([
  ['harness', ['harness.js', 'harnessMain']],
  ['scan', ['scan.js', 'scanMain']],
  ['code-cache', ['code-cache.js', 'codeCacheMain']],
]);

/** The native executables, sexton-<word> (native/tools/). */
export const NATIVE_TOOLS = new Set(['probe', 'status']);

export const isTool = (word: string | undefined): boolean =>
  NATIVE_TOOLS.has(word as string) || TOOL_BUNDLES.has(word as string);
