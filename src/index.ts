// What `require('sexton')` and `import 'sexton'` give: the package's version and the harness
// library (also at 'sexton/harness'). Loading it starts nothing: the init is the `sexton`
// command (src/boot/bin.ts).
export * from './harness/index';

import { VERSION } from './config/version';

/** The installed sexton's version, as `sexton --version` prints it. */
export const version: string = VERSION;
