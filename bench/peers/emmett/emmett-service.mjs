import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';
import { getPostgreSQLEventStore } from '@event-driven-io/emmett-postgresql';

/**
 * A peer service Chronicle is compared with: node:http in front of Emmett's PostgreSQL event store, used as its
 * docs show (`getPostgreSQLEventStore(connectionString)` with its default options: its own emt_* tables and
 * functions, no projections). Same route, body and answer as Chronicle's journal ingestion (and as
 * bench/minimal-service.ts): each request appends all its events to the stream named by the session with ONE
 * `appendToStream` call, one `JournalEventRecorded` event each; the answer's version is the stream's next expected
 * version Emmett returns (its stream positions count from 1, so after an append it is the number of events in the
 * stream). No expected version is passed (Emmett's default: no concurrency check beyond its own stream row).
 * Pool: Emmett's default, dumbo's shared pg.Pool per connection string with pg's default max of 10 connections
 * (the minimal service's size); Emmett exposes no size option short of handing it a pg.Pool of one's own.
 * Schema: created by Emmett's own migration (`eventStore.schema.migrate()`, what `autoMigration: 'CreateOrUpdate'`
 * runs lazily on first use; memoised per store) before the port is opened, so `GET /health` answers 200 only once
 * the tables exist and the first timed request does not pay for them.
 * Started as a child process by bench/run.ts with DATABASE_URL (an empty database) and PORT, from this folder, a
 * package of its own (its dependencies are installed by the bench on first use: `npm ci` here).
 */

const eventStore = getPostgreSQLEventStore(process.env.DATABASE_URL);
const ROUTE = /^\/v1\/sessions\/([^/]+)\/runs\/([^/]+)\/journal$/;

function reply(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function append(sessionId, runId, body) {
  const { events } = JSON.parse(body);
  const recorded = events.map((event) => ({
    type: 'JournalEventRecorded',
    data: { runId, seq: event.seq, event: event.event, payload: event.payload, createdAt: event.createdAt },
  }));
  const result = await eventStore.appendToStream(sessionId, recorded);
  return { sessionId, version: Number(result.nextExpectedStreamVersion), appended: recorded.length, duplicate: false };
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const match = ROUTE.exec(req.url ?? '');
    if (req.method === 'GET' && req.url === '/health') return reply(res, 200, {});
    if (req.method !== 'POST' || !match) return reply(res, 404, { title: 'not found' });
    append(decodeURIComponent(match[1]), decodeURIComponent(match[2]), Buffer.concat(chunks).toString('utf8'))
      .then((answer) => reply(res, 200, answer))
      .catch((error) => reply(res, 500, { title: error.message }));
  });
});
server.keepAliveTimeout = 60_000;

process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => void eventStore.close().then(() => process.exit(0)));
});

eventStore.schema
  .migrate()
  .then(() => server.listen(Number(process.env.PORT), '127.0.0.1'))
  .catch((error) => {
    process.stderr.write(`emmett-service: schema migration failed: ${error.stack ?? error.message}\n`);
    void eventStore.close().finally(() => process.exit(1));
  });
