// Preload (node --require) of scripts/code-cache.mjs's training run: when the init calls the
// addon's exit, writes the code cache of every function compiled so far to dist/init.cache,
// after the init's id line and the Node that made it. Only the build uses it; the shipped loader
// knows nothing of it.
const Module = require('node:module');
const { readFileSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const dist = path.join(__dirname, '..', 'dist');
const load = Module._load;
Module._load = function (request, ...rest) {
  const loaded = load.call(this, request, ...rest);
  if (request.endsWith('sexton.node') && !loaded.__trainsCodeCache) {
    const exit = loaded.exit;
    loaded.exit = (code) => {
      const script = globalThis[Symbol.for('sexton.init-script')];
      const source = readFileSync(path.join(dist, 'init.js'), 'utf8');
      // The init's id line and the Node that made the cache: src/loader.ts checks both.
      const head = `${source.slice(0, source.indexOf('\n') + 1)}// node ${process.version} ${process.arch}\n`;
      writeFileSync(path.join(dist, 'init.cache'), Buffer.concat([Buffer.from(head, 'latin1'), script.createCachedData()]));
      return exit(code);
    };
    loaded.__trainsCodeCache = true;
  }
  return loaded;
};
