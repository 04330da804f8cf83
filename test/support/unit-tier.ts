// Vitest setup file: a unit test (test/unit/) is pure policy, so it loads no addon and runs
// nothing of the build (dist/, build/). Either fails the test that tried, naming what it tried,
// instead of passing on a machine that happens to have the build. A tool of the machine (promtool
// linting rendered text) may still run. Other tiers are untouched: the check is made at each call,
// against the file under test, so a worker shared by tiers is safe.
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import * as path from 'node:path';
import { expect } from 'vitest';

const ROOT = path.resolve(__dirname, '..', '..');
const UNIT = path.join(ROOT, 'test', 'unit') + path.sep;
const BUILT = [path.join(ROOT, 'dist') + path.sep, path.join(ROOT, 'build') + path.sep];
const GUARDED = Symbol.for('sexton.unitTierGuard');

function refuseInUnitTests(what: string): void {
  const file = expect.getState().testPath ?? '';
  if (file.startsWith(UNIT)) {
    throw new Error(`${path.relative(UNIT, file)}: a unit test ${what}; native and process tests belong to a root tier (docs/contributing.md)`);
  }
}

const host = globalThis as { [GUARDED]?: boolean };
if (!host[GUARDED]) {
  host[GUARDED] = true;
  const dlopen = process.dlopen.bind(process);
  process.dlopen = (module, filename, ...rest) => {
    refuseInUnitTests(`loads no addon, not ${filename}`);
    return dlopen(module, filename, ...rest);
  };
  const starters = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;
  for (const name of starters) {
    const original = childProcess[name] as (...args: unknown[]) => unknown;
    (childProcess as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      const words = args.flatMap((arg) => (Array.isArray(arg) ? arg : [arg])).filter((w) => typeof w === 'string');
      const built = words.find((word) => BUILT.some((dir) => word.includes(dir)));
      if (built !== undefined) refuseInUnitTests(`runs nothing of the build, not ${built}`);
      return original.apply(childProcess, args);
    };
  }
  syncBuiltinESMExports();  // so that `import { spawn } from 'node:child_process'` sees the check too
}
