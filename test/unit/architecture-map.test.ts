// docs/architecture.md is the map: every file under src/ and native/ is named on a line of it,
// so a new file cannot land without saying where it belongs.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';

const root = path.join(__dirname, '..', '..');
const map = readFileSync(path.join(root, 'docs', 'architecture.md'), 'utf8');

function filesUnder(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
}

/**
 * Named by its own name, a header by its source's, or inside a folder below the first level that
 * the map names as one unit (native/compat/musl/): a new file in init/ must be named itself.
 */
function onTheMap(file: string): boolean {
  const name = path.basename(file);
  const names = [name, name.replace(/\.h$/, '.cc')];
  const words = new Set(map.split(/[\s,()`]+/));
  if (names.some((n) => words.has(n))) return true;
  const below = path.dirname(file).split(path.sep).slice(2);  // past src/init, native/compat
  return below.some((folder) => words.has(`${folder}/`));
}

test('every file under src/ and native/ is on a line of docs/architecture.md', () => {
  const files = [...filesUnder('src'), ...filesUnder('native')];
  expect(files.length).toBeGreaterThan(50);
  expect(files.filter((file) => !onTheMap(file))).toEqual([]);
});

test('every folder of src/ is on the map too', () => {
  const folders = readdirSync(path.join(root, 'src'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => `${e.name}/`);
  expect(folders.filter((folder) => !map.includes(`  ${folder}`))).toEqual([]);
});

test('test/unit mirrors src/: each folder of unit tests is a folder of src, each test file in one', () => {
  const unit = path.join(root, 'test', 'unit');
  const entries = readdirSync(unit, { withFileTypes: true, recursive: true });
  const folders = entries.filter((e) => e.isDirectory()).map((e) => path.relative(unit, path.join(e.parentPath, e.name)));
  expect(folders.filter((folder) => !readdirSync(path.join(root, 'src', path.dirname(folder))).includes(path.basename(folder)))).toEqual([]);
  const loose = entries.filter((e) => e.isFile() && e.parentPath === unit).map((e) => e.name);
  expect(loose).toEqual(['architecture-map.test.ts']);  // of the repository, not of a folder of src
});

/** The layers from the floor up; a folder imports only those below it. Rooms sit on report. */
const LAYERS = ['platform', 'config', 'report', 'init', 'personalities', 'boot'];
const ROOMS = ['harness', 'scan', 'probe'];
const rank = (folder: string) => (ROOMS.includes(folder) ? LAYERS.indexOf('report') + 0.5 : LAYERS.indexOf(folder));

test('imports run downward: no folder of src imports a layer above it, so none imports another in a circle', () => {
  const upward: string[] = [];
  for (const file of filesUnder('src').filter((f) => f.endsWith('.ts') && f.split(path.sep).length > 2)) {
    const from = file.split(path.sep)[1];
    expect(rank(from), `${from}/ is on no floor of LAYERS or ROOMS`).toBeGreaterThanOrEqual(0);
    const text = readFileSync(path.join(root, file), 'utf8');
    for (const [, spec] of text.matchAll(/(?:from |require\(|import\(|^import )'(\.[^']+)'/gm)) {
      const target = path.relative(path.join(root, 'src'), path.resolve(path.dirname(path.join(root, file)), spec)).split(path.sep);
      if (target.length < 2 || target[0] === from) continue;
      if (rank(target[0]) >= rank(from)) upward.push(`${file} imports ${spec}`);
    }
  }
  expect(upward).toEqual([]);
});

test("nothing is loose at test/'s root: each test file sits in a folder named for what it guards", () => {
  const folders = readdirSync(path.join(root, 'test'), { withFileTypes: true });
  expect(folders.filter((e) => !e.isDirectory()).map((e) => e.name)).toEqual([]);
  const guide = readFileSync(path.join(root, 'docs', 'contributing.md'), 'utf8');
  const named = (folder: string) => guide.includes(`\`test/${folder}/\``);
  expect(folders.map((e) => e.name).filter((folder) => !['support', 'fixtures'].includes(folder) && !named(folder))).toEqual([]);
});

test('a unit test loads no addon and runs nothing of the build: the tier refuses both (test/support/unit-tier.ts)', () => {
  const addon = path.join(root, 'build', 'Release', 'sexton.node');
  expect(() => process.dlopen({ exports: {} } as NodeJS.Module, addon)).toThrow(/a unit test loads no addon/);
  const sexton = path.join(root, 'dist', 'sexton.js');
  expect(() => spawnSync(process.execPath, [sexton, '--version'])).toThrow(/a unit test runs nothing of the build/);
  const unit = path.join(root, 'test', 'unit');
  const runners = readdirSync(unit, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))
    .filter((f) => /from '(?:\.\.\/)+support\/pid1'/.test(readFileSync(path.join(unit, f), 'utf8')));
  expect(runners, 'unit tests that import the PID-1 runner').toEqual([]);
});
