// sexton's version: the bundler writes package.json's into the build (scripts/bundle.mjs); code
// run from source (the tests) reads 'dev'.
declare const SEXTON_VERSION: string;

export const VERSION: string = typeof SEXTON_VERSION === 'string' ? SEXTON_VERSION : 'dev';
