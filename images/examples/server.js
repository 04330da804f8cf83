// The example Node app of Dockerfile.examples: an HTTP server that stops gracefully. On SIGTERM
// (which sexton forwards after its drain delay) it stops accepting connections, lets requests
// in flight finish, and exits 0. sexton gives it --grace seconds for that, then SIGKILLs.
const http = require('node:http');

const port = Number(process.env.PORT || 8080);
const server = http.createServer((req, res) => {
  res.end(`hello from pid ${process.pid}\n`);
});
server.listen(port, () => console.log(`server: listening on ${port}`));

process.on('SIGTERM', () => {
  console.log('server: SIGTERM, closing');
  server.close(() => {
    console.log('server: closed');
    process.exit(0);
  });
  // Keep-alive connections would hold close() open: end idle ones now.
  server.closeIdleConnections();
});
