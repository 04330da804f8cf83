// Preload (node --require) of scripts/code-cache.mjs's training run: when the init calls the
// addon's exit, writes the code cache of every function compiled so far to dist/init.cache,
// after the head src/loader.ts expects (the init's id, the Node that made the cache), if this
// Node's V8 takes the cache back. Only the build uses it; the shipped loader knows nothing of it.
const Module = require('node:module');
const { writeFileSync } = require('node:fs');
const path = require('node:path');
const { Script } = require('node:vm');

const CACHE = path.join(__dirname, '..', 'dist', 'init.cache');
const load = Module._load;
Module._load = function (request, ...rest) {
  const loaded = load.call(this, request, ...rest);
  if (request.endsWith('sexton.node') && !loaded.__trainsCodeCache) {
    const exit = loaded.exit;
    loaded.exit = (code) => {
      const { script, wrapped, head } = globalThis[Symbol.for('sexton.init-script')];
      const data = script.createCachedData();
      const check = new Script(wrapped, { filename: path.join(__dirname, '..', 'dist', 'init.js'), cachedData: data });
      if (check.cachedDataRejected) process.stderr.write('code-cache: V8 refuses the cache it just made\n');
      else writeFileSync(CACHE, Buffer.concat([Buffer.from(head, 'latin1'), data]));
      return exit(code);
    };
    loaded.__trainsCodeCache = true;
  }
  return loaded;
};
