// The `sexton` command (package.json "bin", bundled as dist/sexton.js). Only this file runs the
// CLI when loaded; `require('sexton')` gets the library of src/index.ts instead.
import { main } from './cli';

main(process.argv.slice(2));
