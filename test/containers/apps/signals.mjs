// Prints every signal of interest it receives, one line each, so the test can read them from
// `podman logs`. Exits 0 on SIGTERM.
for (const signal of ['SIGUSR1', 'SIGUSR2', 'SIGHUP', 'SIGWINCH']) {
  process.on(signal, () => console.log(`signals: got ${signal}`));
}
process.on('SIGTERM', () => process.exit(0));
setInterval(() => {}, 60_000);
console.log('signals: ready');
