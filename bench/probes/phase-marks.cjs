// Preload (node --require) for sexton: stamps CLOCK_MONOTONIC (ms) at each step of its start and
// stop, and prints the stamps on fd 2 when sexton calls its native exit. sexton leaves with
// _exit, so --cpu-prof never writes a profile: this is the profile.
const Module = require('node:module');
const { writeSync } = require('node:fs');

const marks = [];
const stamp = (what) => marks.push([Number(process.hrtime.bigint()) / 1e6, what]);
stamp('preload');

/** Wraps the addon's functions: a mark at each call, return and callback. */
function instrument(addon) {
  for (const [name, fn] of Object.entries(addon)) {
    if (typeof fn !== 'function') continue;
    addon[name] = function (...args) {
      stamp(`${name}(`);
      if (name === 'exit') writeSync(2, `${marks.map(([at, what]) => `mark ${at.toFixed(3)} ${what}`).join('\n')}\n`);
      const wrapped = args.map((arg) => (typeof arg === 'function' ? (event, ...rest) => {
        stamp(`${name} callback ${event?.kind ?? (event?.signal ? 'signal' : '')}`);
        return arg(event, ...rest);
      } : arg));
      const result = fn.apply(this, wrapped);
      stamp(`${name})`);
      return result;
    };
  }
}

const load = Module._load;
Module._load = function (request, ...rest) {
  const watched = /sexton\.js$|child_process|sexton\.node$/.exec(request)?.[0];
  if (watched) stamp(`load ${watched}`);
  const loaded = load.call(this, request, ...rest);
  if (watched) stamp(`loaded ${watched}`);
  if (watched === 'sexton.node' && !loaded.__phaseMarks) {
    instrument(loaded);
    loaded.__phaseMarks = true;
  }
  return loaded;
};
