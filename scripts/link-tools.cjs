// Links the native `sexton probe` and `sexton status` (native/tools/) into dist/, beside the
// `sexton` command whose sh line execs them: the local build's, else this machine's prebuild.
// Run by the build (scripts/bundle.mjs) and at install (scripts/install.cjs); a tool with
// neither is left out, and `sexton probe` then says so in one line.
const { existsSync, rmSync, symlinkSync } = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const TOOLS = ['sexton-probe', 'sexton-status'];

function linkTools(root = ROOT) {
  for (const tool of TOOLS) {
    const link = path.join(root, 'dist', tool);
    const target = [path.join('build', 'Release', tool), path.join('prebuilds', `linux-${process.arch}`, tool)]
      .find((file) => existsSync(path.join(root, file)));
    rmSync(link, { force: true });
    if (target !== undefined && existsSync(path.join(root, 'dist'))) symlinkSync(path.join('..', target), link);
  }
}

module.exports = linkTools;
if (require.main === module) linkTools();
