// The init bundle's entry (bundled as dist/init.js; the `sexton` command, dist/sexton.js, runs it
// from its code cache). Only this file runs the CLI when loaded; `require('sexton')` gets the
// library of src/index.ts instead.
import { main } from './cli';

main(process.argv.slice(2));
