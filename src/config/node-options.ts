// The NODE_OPTIONS sexton's init runs under. The init sheds those that put code into PID 1 by
// starting itself again without them (src/init/guards.ts); the code cache must be trained under
// what is left (src/boot/code-cache-train.ts), since V8 refuses a cache made under other V8 flags.

/** Node options that put code into the process: a preload, a loader, an inspector. */
const CODE_IN_PID1 = /(?:^|\s)(?:-r|--require|--import|--loader|--experimental-loader|--inspect[\w-]*)(?=[\s=]|$)/;

/** Whether the init sheds these NODE_OPTIONS. */
export function putsCodeInPid1(options: string): boolean {
  return CODE_IN_PID1.test(options);
}

/** The NODE_OPTIONS the init ends up running under when started with `options`. */
export function nodeOptionsOfInit(options: string | undefined): string | undefined {
  return options && !putsCodeInPid1(options) ? options : undefined;
}
