// The least a Node init built on sexton's addon can do, for the startup floor: the addon's
// handlers, its two threads, the spawn, and an exit with the child's status. No CLI, no policy,
// no code cache: what sexton's start costs beyond this is sexton's own.
//   node bench/measure/addon-init.cjs /bin/true
const path = require('node:path');

const native = require(path.join(__dirname, '..', '..', 'build', 'Release', 'sexton.node'));
native.installSignalHandlers();
native.shareOneMallocArena();
native.startNotifier(() => {});
native.startReaper((event) => {
  if (event.kind === 'main-exited') native.exit(event.exitCode);
});
const child = native.spawn(process.argv.slice(2), [process.argv[2]], undefined, 0);
if (child.pid <= 0) native.exit(127);
