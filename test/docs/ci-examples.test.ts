// The CI examples (examples/ci/): the GitHub Actions workflow and the GitLab CI job
// run the same commands, their vitest file is the one docs/harness.md shows, and each of their
// sexton commands passes as uid 65534 in an app laid out as `npm ci` leaves one: this checkout
// as node_modules/sexton (bind-mounted, so nobody can reach it wherever the clone lives),
// vitest beside it, the docs' entrypoint as server.js. Nothing here needs the network.
import { chownSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { asNobody, NOBODY } from '../support/nobody';
import { FIXTURES, requireBuilt, ROOT } from '../support/pid1';

const EXAMPLES = path.join(ROOT, 'examples', 'ci');
const read = (name: string) => readFileSync(path.join(EXAMPLES, name), 'utf8');

/** The commands a CI file runs: GitHub's `run:` lines, GitLab's `script:` items (comments and multi-line setup apart). */
function commandsOf(yaml: string): string[] {
  return yaml.split('\n').map((l) => /^\s*-\s+(?:run:\s+)?(npm \S.*|npx \S.*)$/.exec(l)?.[1]).filter((c): c is string => c !== undefined);
}

const SEXTON_COMMANDS = ['npx sexton harness orphans', 'npx vitest run test/zombies.test.ts', 'npx sexton --strict -- npm test'];

describe('the examples agree', () => {
  test('both CI files run the same commands: npm ci, then the three sexton gates', () => {
    expect(commandsOf(read('github-actions.yml'))).toEqual(['npm ci', ...SEXTON_COMMANDS]);
    expect(commandsOf(read('gitlab-ci.yml'))).toEqual(['npm ci', ...SEXTON_COMMANDS]);
  });

  test('each says what it needs from the runner', () => {
    for (const name of ['github-actions.yml', 'gitlab-ci.yml', 'zombies.test.ts']) expect(read(name), name).toMatch(/Needs|needs from the runner/);
    expect(read('github-actions.yml')).toMatch(/sudo sysctl -w kernel\.apparmor_restrict_unprivileged_userns=0/);
    expect(read('gitlab-ci.yml')).toMatch(/privileged = true/);
  });

  test('the vitest file is the one docs/harness.md shows', () => {
    const docs = readFileSync(path.join(ROOT, 'docs', 'harness.md'), 'utf8');
    expect(/```ts\n([\s\S]*?)```/.exec(docs)?.[1]).toBe(read('zombies.test.ts'));
  });
});

describe(`the examples' sexton commands as uid ${NOBODY}`, () => {
  let app = '';
  beforeAll(() => {
    requireBuilt();
    app = mkdtempSync(path.join(tmpdir(), 'sexton-rootless-app-'));
    const modules = path.join(app, 'node_modules');
    mkdirSync(path.join(modules, 'sexton'), { recursive: true });  // the checkout is mounted here
    mkdirSync(path.join(modules, '.bin'));
    mkdirSync(path.join(app, 'test'));
    symlinkSync('sexton/node_modules/vitest', path.join(modules, 'vitest'));
    symlinkSync('../sexton/dist/sexton.js', path.join(modules, '.bin', 'sexton'));
    symlinkSync('../vitest/vitest.mjs', path.join(modules, '.bin', 'vitest'));
    writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, scripts: { test: 'vitest run' }, devDependencies: { sexton: '*', vitest: '*' } }));
    copyFileSync(path.join(FIXTURES, 'harness-app.js'), path.join(app, 'server.js'));
    copyFileSync(path.join(EXAMPLES, 'zombies.test.ts'), path.join(app, 'test', 'zombies.test.ts'));
    for (const p of ['', 'node_modules', 'node_modules/.bin', 'test', 'package.json', 'server.js', 'test/zombies.test.ts']) chownSync(path.join(app, p), NOBODY, NOBODY);
  });
  afterAll(() => {
    if (app) rmSync(app, { recursive: true, force: true });
  });

  /** One example command, as written, in the app, as nobody; npm offline, its cache in the app. */
  function run(command: string) {
    return asNobody(['sh', '-c', command], {
      mountAt: path.join(app, 'node_modules', 'sexton'), cwd: app, timeoutMs: 90_000,
      env: { npm_config_cache: path.join(app, '.npm'), npm_config_offline: 'true', npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' },
    });
  }

  test.each(SEXTON_COMMANDS)('%s passes', async (command) => {
    const result = await run(command);
    expect(result.exitCode, `${command}\n${result.stdout}\n${result.stderr}`).toBe(0);
    if (command.includes('harness')) expect(result.stdout).toMatch(/namespace\s+user[\s\S]*verdict\s+clean/);
    else expect(result.stdout).toMatch(/1 passed/);
  }, 120_000);

  test('and they fail on a leak: --strict over a test command that leaves an orphan exits 70', async () => {
    writeFileSync(path.join(app, 'leaky.sh'), '(sleep 0.2 &)\n');
    chownSync(path.join(app, 'leaky.sh'), NOBODY, NOBODY);
    const result = await run('npx sexton --strict -- sh leaky.sh');
    expect(result.exitCode, result.stderr).toBe(70);
    expect(result.stderr).toMatch(/strict: reaped 1 orphan\(s\)/);
  }, 120_000);
});
