import { createServer } from 'node:http';

/**
 * The load client's ceiling: answers every request 200 `{}` at once (after reading its body), keep-alive.
 * Started as a child process by bench/run.ts with PORT set.
 */
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 });
    res.end('{}');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT), '127.0.0.1');
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
