// Writes the third-party notices for the packages bundled into dist/: each package's name,
// version, licence and the licence text it ships (its LICENSE, LICENCE, COPYING or NOTICE
// files), taken from node_modules at build time so that the file follows the lockfile.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

/** The package directory of a bundled file: its innermost node_modules/NAME or node_modules/@SCOPE/NAME. */
export function packageDirOf(file) {
  const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(file.replaceAll('\\', '/'));
  return match ? match[1] : undefined;
}

const LICENCE_FILE = /^(licen[cs]e|copying|notice)([.-].*)?$/i;

/** Every bundled package, sorted by name, with its licence texts. */
export function bundledPackages(inputs) {
  const dirs = [...new Set(inputs.map(packageDirOf).filter(Boolean))];
  const packages = dirs.map((dir) => {
    const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    const files = readdirSync(dir).filter((f) => LICENCE_FILE.test(f)).sort();
    const texts = files.map((f) => readFileSync(path.join(dir, f), 'utf8').trim());
    const licence = typeof manifest.license === 'string' ? manifest.license : manifest.license?.type ?? 'UNKNOWN';
    return { name: manifest.name, version: manifest.version, licence, files, texts };
  });
  return packages.sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
}

export function writeNotices(inputs, out) {
  const packages = bundledPackages(inputs);
  const missing = packages.filter((p) => p.texts.length === 0).map((p) => `${p.name}@${p.version}`);
  if (missing.length > 0) throw new Error(`notices: no licence file in ${missing.join(', ')}`);
  const sections = packages.map((p) => [`## ${p.name}@${p.version} (${p.licence})`, '', ...p.texts.flatMap((t) => ['```', t, '```', ''])].join('\n'));
  const head = [
    '# Third-party notices',
    '',
    "sexton's dist/ bundles the following packages. Their licences and notices follow, as each",
    'package ships them. (sexton itself: see LICENSE.)',
    '',
  ].join('\n');
  writeFileSync(out, `${head}\n${sections.join('\n')}`);
}
