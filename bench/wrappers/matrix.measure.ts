// The wrapper matrix under every init, for docs/wrappers.md: `npm run bench:wrappers` (as root,
// under the proc-tests lock; MATRIX_INITS=sexton,tini to run some). Prints the table; the test
// suite checks sexton's column alone (test/init/wrappers.test.ts).
import { test } from 'vitest';
import { inBatches, OTHER_INITS, runCase, SEXTON_INIT, WRAPPER_CASES, type CaseResult } from '../../test/support/wrapper-matrix';

const GRACE_SECONDS = 10;

function cell(r: CaseResult): string {
  if (!r.started) return `did not start (exit ${r.exitCode})`;
  const what = r.marker ? 'marker' : '**no marker**';
  const end = r.killedAtGrace ? `SIGKILL at ${GRACE_SECONDS} s` : `exit ${r.exitCode} at ${(r.stopMs / 1000).toFixed(1)} s`;
  return `${what}, ${end}`;
}

test('the wrapper matrix under sexton, tini, tini -g, dumb-init and no init', async () => {
  const wanted = process.env.MATRIX_INITS?.split(',');
  const inits = [SEXTON_INIT, ...OTHER_INITS].filter((i) => !wanted || wanted.includes(i.name));
  const tasks = WRAPPER_CASES.flatMap((c) => inits.map((init) => () => runCase(c, init, { graceSeconds: GRACE_SECONDS })));
  const results = await inBatches(tasks, 4);
  const lines = [`| CMD | ${inits.map((i) => i.name).join(' | ')} |`, `|---|${inits.map(() => '---').join('|')}|`];
  for (const c of WRAPPER_CASES) {
    const row = inits.map((i) => cell(results.find((r) => r.wrapper === c.name && r.init === i.name)!));
    lines.push(`| \`${c.name}\` | ${row.join(' | ')} |`);
  }
  console.log(lines.join('\n'));
  if (process.env.MATRIX_VERBOSE) for (const r of results) console.log(`--- ${r.wrapper} / ${r.init}\n${r.stderr}`);
});
