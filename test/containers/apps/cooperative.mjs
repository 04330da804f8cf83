// A well-behaved app: on SIGTERM it exits 0 at once.
process.on('SIGTERM', () => {
  console.log('cooperative: SIGTERM, bye');
  process.exit(0);
});
setInterval(() => {}, 60_000);
console.log('cooperative: ready');
