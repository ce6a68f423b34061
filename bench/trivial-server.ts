import { createServer } from 'node:http';

/**
 * The load client's ceiling: answers every request 200 `{}` at once (after reading its body), keep-alive;
 * `GET /bytes/<n>` answers n bytes held in memory (the ceiling of the machine for reads of answers that size).
 * Started as a child process by bench/run.ts with PORT set.
 */
const EMPTY = Buffer.from('{}');
const sized = new Map<number, Buffer>();
const answerOf = (url = ''): Buffer => {
  const match = /^\/bytes\/(\d{1,8})$/.exec(url);
  if (!match) return EMPTY;
  const size = Number(match[1]);
  let body = sized.get(size);
  if (!body) sized.set(size, (body = Buffer.from(`"${'x'.repeat(Math.max(0, size - 2))}"`)));
  return body;
};
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const body = answerOf(req.url);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT), '127.0.0.1');
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
