import { createServer, type ServerResponse } from 'node:http';
import pg from 'pg';
import { WebSocketServer } from 'ws';

/**
 * The minimal service Chronicle is compared with: node:http, one pg.Pool of 10, one named prepared INSERT of
 * the event per request, nothing else (no auth check, validation, hashing, stream head, read models or logs).
 * Same route and body as Chronicle's journal ingestion; the event's seq is its stream version. The same over
 * `GET /v1/ingest` (upgraded, no key checked): a message `{ id, sessionId, runId, body }` whose journal events are
 * inserted by one statement (one row, or an `unnest` of all of them), answered `{ id, status: 200, body }` after
 * the insert: what any Node service pays for Chronicle's socket shapes before it does any of Chronicle's work.
 * Started as a child process by bench/run.ts with DATABASE_URL (a database with an `events` table) and PORT.
 */
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const INSERT = 'INSERT INTO events (stream_id, version, type, data, metadata) VALUES ($1, $2, $3, $4, $5)';
const ROUTE = /^\/v1\/sessions\/([^/]+)\/runs\/([^/]+)\/journal$/;

function reply(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const match = ROUTE.exec(req.url ?? '');
    if (req.method === 'GET' && req.url === '/health') return reply(res, 200, {});
    if (req.method !== 'POST' || !match) return reply(res, 404, { title: 'not found' });
    const sessionId = decodeURIComponent(match[1]!);
    const runId = decodeURIComponent(match[2]!);
    const event = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { events: Array<Record<string, unknown>> }).events[0]!;
    const data = JSON.stringify({ runId, seq: event.seq, event: event.event, payload: event.payload, createdAt: event.createdAt });
    pool
      .query({ name: 'append', text: INSERT, values: [sessionId, event.seq, 'JournalEventRecorded', data, '{}'] })
      .then(() => reply(res, 200, { sessionId, version: event.seq, appended: 1, duplicate: false }))
      .catch((error: Error) => reply(res, 500, { title: error.message }));
  });
});
const INSERT_MANY =
  'INSERT INTO events (stream_id, version, type, data, metadata) SELECT $1, v, $2, d::jsonb, $3::jsonb FROM unnest($4::bigint[], $5::text[]) AS e(v, d)';

interface Message {
  readonly id: string;
  readonly sessionId: string;
  readonly runId: string;
  readonly body: { readonly events: ReadonlyArray<Record<string, unknown>> };
}

const sockets = new WebSocketServer({ server, path: '/v1/ingest' });
sockets.on('connection', (socket) => {
  socket.on('message', (frame) => {
    const { id, sessionId, runId, body } = JSON.parse(String(frame)) as Message;
    const events = body.events;
    const dataOf = (event: Record<string, unknown>): string =>
      JSON.stringify({ runId, seq: event.seq, event: event.event, payload: event.payload, createdAt: event.createdAt });
    const insert =
      events.length === 1
        ? { name: 'append', text: INSERT, values: [sessionId, events[0]!.seq, 'JournalEventRecorded', dataOf(events[0]!), '{}'] }
        : { name: 'append-many', text: INSERT_MANY, values: [sessionId, 'JournalEventRecorded', '{}', events.map((e) => e.seq), events.map(dataOf)] };
    const answer = (status: number, answerBody: unknown): void => socket.send(JSON.stringify({ id, status, body: answerBody }));
    pool
      .query(insert)
      .then(() => answer(200, { sessionId, version: events.at(-1)!.seq, appended: events.length, duplicate: false }))
      .catch((error: Error) => answer(500, { title: error.message }));
  });
});

server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT), '127.0.0.1');
process.once('SIGTERM', () => {
  for (const socket of sockets.clients) socket.terminate();
  server.closeAllConnections();
  server.close(() => void pool.end().then(() => process.exit(0)));
});
