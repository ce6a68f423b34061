import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ChronicleProblem, createChronicleClient, type JournalWriter, type TranscriptState, type TranscriptWatcher, type WriteResult } from '#client';
import { loadConfig, parseApiKeys } from '#platform';
import { createApp } from '../../apps/session-api/src/app.factory.js';
import { KEYS, startTestApp, TEST_KEYS_SPEC, TEST_MASTER_KEY, type TestApp } from '../support/app.js';
import { pollUntil } from '../support/poll.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

/**
 * The client library (libs/client, `#client`) against the real service on a real PostgreSQL: its generated
 * types are the current server's, its typed calls answer bodies or throw typed problems, its JournalWriter
 * streams a turn over `/v1/ingest` and resends what a dropped connection left unanswered (each seq stored once),
 * and its watcher follows `/live` patches to the transcript `GET …/transcript` serves, hash for hash.
 */
let t: TestApp;
let base: string;
const T0 = 1_800_000_000;
const FAST_RECONNECT = { initialDelayMs: 10, maxDelayMs: 200 };

const client = (apiKey: string, baseUrl = base) => createChronicleClient({ baseUrl, apiKey });
const worker = () => client(KEYS.ingest);
const reader = () => client(KEYS.read);

const cleanups: Array<() => unknown> = [];
const later = <T>(value: T, cleanup: (value: T) => unknown): T => {
  cleanups.push(() => cleanup(value));
  return value;
};
const proxyTo = async (url: string): Promise<TcpProxy> => later(await startTcpProxy(url), (proxy) => proxy.close());
const writerOf = (writer: JournalWriter) => later(writer, (w) => w.terminate());

/** The seqs of a session's stored journal events, in stream order. */
async function journalSeqs(sessionId: string, baseUrl = base): Promise<number[]> {
  const { items } = await client(KEYS.read, baseUrl).events(sessionId, { limit: 1000 });
  return items.filter((event) => event.type === 'JournalEventRecorded').map((event) => (event.data as { seq: number }).seq);
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

async function startTurn(sessionId: string, runId = 'run-1', baseUrl = base): Promise<void> {
  const api = client(KEYS.ingest, baseUrl);
  await api.startSession({ sessionId, createdAt: T0 });
  await api.submit(sessionId, { runId, text: 'go', submittedAt: T0 + 1 });
}

/** Iterates a watcher in the background, collecting every state it yields. */
function collect(watcher: TranscriptWatcher) {
  const states: TranscriptState[] = [];
  const done = (async () => {
    for await (const state of watcher) states.push(state);
  })();
  // A test that expects the iteration to fail awaits `done` itself; every other one closes the watcher.
  done.catch(() => undefined);
  later(watcher, (w) => w.close());
  return { states, done, last: () => states.at(-1) };
}

beforeAll(async () => {
  t = await startTestApp({ CHRONICLE_BODY_LIMIT_BYTES: '65536' });
  await t.app.listen(0, '127.0.0.1');
  base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

afterAll(async () => {
  await t?.close();
});

describe('the generated types', () => {
  const generate = (document: unknown): string => {
    const dir = mkdtempSync(join(tmpdir(), 'chronicle-openapi-'));
    try {
      writeFileSync(join(dir, 'openapi.json'), JSON.stringify(document));
      return execFileSync(process.execPath, ['scripts/generate-client-types.mjs', '--from', join(dir, 'openapi.json'), '--out', '-'], { encoding: 'utf8' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  /** The first line where two texts differ, or null: a readable failure instead of two 2,700-line strings. */
  const firstDifference = (committed: string, generated: string): string | null => {
    const [a, b] = [committed.split('\n'), generated.split('\n')];
    const line = a.findIndex((text, i) => text !== b[i]);
    if (line < 0 && a.length === b.length) return null;
    const at = line < 0 ? Math.min(a.length, b.length) : line;
    return `line ${at + 1}: committed ${JSON.stringify(a[at])}, the server generates ${JSON.stringify(b[at])}; run npm run generate:client`;
  };
  let document: { components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
  let generated: string;
  beforeAll(async () => {
    document = (await (await fetch(`${base}/docs/openapi.json`)).json()) as typeof document;
    generated = generate(document);
  });

  it("are what the current server's OpenAPI document generates (libs/client/src/generated/openapi.ts)", () => {
    expect(firstDifference(readFileSync('libs/client/src/generated/openapi.ts', 'utf8'), generated)).toBeNull();
  });

  it('change when the document does: a new answer field is a difference the check above reports', () => {
    const changed = structuredClone(document);
    changed.components.schemas.WriteResult!.properties.replica = { type: 'string' };
    const regenerated = generate(changed);
    expect(firstDifference(generated, regenerated)).toMatch(/replica/);
  });
});

describe('the package', () => {
  it('exports the built client as chronicle/client, loadable by plain Node', () => {
    const script = "const c = await import('chronicle/client'); console.log(['createChronicleClient', 'JournalWriter', 'TranscriptWatcher', 'ChronicleProblem'].map((n) => typeof c[n]).join())";
    expect(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim()).toBe('function,function,function,function');
  });
});

describe('typed HTTP calls', () => {
  it('answer the route bodies: start, submit, journal, settle, then the transcript and summary', async () => {
    const api = worker();
    expect(await api.startSession({ sessionId: 'c-http', createdAt: T0 })).toEqual({ sessionId: 'c-http', version: 1, appended: 1, duplicate: false });
    expect(await api.startSession({ sessionId: 'c-http', createdAt: T0 })).toMatchObject({ version: 1, appended: 0, duplicate: true });
    await api.submit('c-http', { runId: 'run-1', text: 'hello?', submittedAt: T0 + 1 });
    const tokens = [1, 2].map((seq) => ({ seq, event: 'token', payload: { text: seq === 1 ? 'Hel' : 'lo' }, createdAt: T0 + 1 + seq }));
    expect(await api.journal('c-http', 'run-1', tokens)).toMatchObject({ version: 4, appended: 2 });
    const rows = [
      { role: 'user' as const, content: 'hello?', timestamp: T0 + 1 },
      { role: 'assistant' as const, content: 'Hello', timestamp: T0 + 4 },
    ];
    expect(await api.settle('c-http', 'run-1', { rows, settledAt: T0 + 5 })).toMatchObject({ version: 5, appended: 1 });
    const transcript = await reader().transcript('c-http');
    expect(transcript).toMatchObject({ sessionId: 'c-http', version: 5, view: 'display', messages: [{ content: 'hello?' }, { content: 'Hello' }] });
    // The openapi-fetch client itself: any route of the document, typed by it.
    const { data } = await reader().api.GET('/v1/sessions/{id}', { params: { path: { id: 'c-http' } } });
    expect(data).toMatchObject({ sessionId: 'c-http', version: 5, messageCount: 2, pendingTurn: null });
  });

  it('throw a ChronicleProblem with the status, code, detail and every bad field of a refusal', async () => {
    const unknown = await worker().submit('c-never-started', { runId: 'r', text: 'x', submittedAt: T0 }).catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(ChronicleProblem);
    expect(unknown).toMatchObject({ status: 404, code: 'SESSION_NOT_FOUND', errors: [] });
    const malformed = await worker()
      .journal('c-http', 'run-1', [{ seq: -1, event: 'token', payload: {}, createdAt: T0 }])
      .catch((error: unknown) => error as ChronicleProblem);
    expect(malformed).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect((malformed as ChronicleProblem).errors.map((e) => e.path)).toContain('events.0.seq');
    await expect(reader().startSession({ sessionId: 'c-read-only' })).rejects.toMatchObject({ status: 403, code: 'FORBIDDEN' });
  });
});

describe('paged reads', () => {
  /** A reader whose fetch counts the requests of each path. */
  const countingReader = () => {
    const requests: string[] = [];
    const api = createChronicleClient({
      baseUrl: base,
      apiKey: KEYS.read,
      fetch: (input, init) => {
        requests.push(new URL(input instanceof Request ? input.url : String(input)).pathname);
        return fetch(input, init);
      },
    });
    return { api, requests };
  };

  it('eachSession follows nextCursor through every page of the list, each session once', async () => {
    const ids = range(1, 5).map((n) => `c-paged-${n}`);
    for (const [n, sessionId] of ids.entries()) await worker().startSession({ sessionId, title: `Paged list ${n}`, createdAt: T0 + n });
    await pollUntil('the index lists the five sessions', () => reader().sessions({ q: 'paged list', limit: 100 }), (page) => page.items.length === 5);
    const { api, requests } = countingReader();
    const seen: string[] = [];
    for await (const summary of api.eachSession({ q: 'paged list', limit: 2 })) seen.push(summary.sessionId);
    // Newest activity first: the last started first.
    expect(seen).toEqual([...ids].reverse());
    expect(requests.filter((path) => path === '/v1/sessions')).toHaveLength(3);
    // A caller that stops early fetches no further page.
    const first = countingReader();
    for await (const summary of first.api.eachSession({ q: 'paged list', limit: 2 })) {
      expect(summary.sessionId).toBe('c-paged-5');
      break;
    }
    expect(first.requests).toHaveLength(1);
  });

  it("eachEvent reads a session's events after a version, page after page, in version order", async () => {
    await startTurn('c-paged-events');
    const tokens = range(1, 5).map((seq) => ({ seq, event: 'token', payload: { text: `t${seq}` }, createdAt: T0 + 1 + seq }));
    expect(await worker().journal('c-paged-events', 'run-1', tokens)).toMatchObject({ version: 7 });
    const { api, requests } = countingReader();
    const versions: number[] = [];
    for await (const event of api.eachEvent('c-paged-events', { limit: 3 })) versions.push(event.version);
    expect(versions).toEqual(range(1, 7));
    expect(requests).toHaveLength(3);
    const after: number[] = [];
    for await (const event of reader().eachEvent('c-paged-events', { after: 4, limit: 2 })) after.push(event.version);
    expect(after).toEqual([5, 6, 7]);
    await expect(reader().eachEvent('c-never-started').next()).rejects.toMatchObject({ status: 404, code: 'SESSION_NOT_FOUND' });
  });

  it("markers() answers the session's recovery markers", async () => {
    await worker().startSession({ sessionId: 'c-markers', createdAt: 50 });
    expect(await reader().markers('c-markers')).toEqual([]);
    // A turn submitted long ago with no journal: the sweep interrupts it and its marker waits for the journal.
    await worker().submit('c-markers', { runId: 'run-stale', text: 'anyone?', submittedAt: 60 });
    const sweep = await createChronicleClient({ baseUrl: base, apiKey: KEYS.admin }).api.POST('/v1/recovery/sweep', { body: {} });
    expect(sweep.response.status).toBe(200);
    expect(await reader().markers('c-markers')).toEqual([expect.objectContaining({ runId: 'run-stale', status: 'pending_journal' })]);
  });
});

describe('JournalWriter', () => {
  it('streams a turn: the submission, tokens sent without waiting for each reply, the settle, each answered after its commit', async () => {
    await worker().startSession({ sessionId: 'c-ws', createdAt: T0 });
    const writer = writerOf(worker().journalWriter());
    expect(await writer.submit('c-ws', { runId: 'run-1', text: 'stream please', submittedAt: T0 + 1 })).toMatchObject({ version: 2, appended: 1 });
    const replies: Promise<WriteResult>[] = [];
    for (let seq = 1; seq <= 100; seq += 1) {
      await writer.ready();
      replies.push(writer.token('c-ws', 'run-1', seq, ` w${seq}`, { createdAt: T0 + 1 + seq / 1000 }));
    }
    const rows = [
      { role: 'user' as const, content: 'stream please', timestamp: T0 + 1 },
      { role: 'assistant' as const, content: range(1, 100).map((seq) => ` w${seq}`).join(''), timestamp: T0 + 2 },
    ];
    const settled = await writer.settle('c-ws', 'run-1', { rows, settledAt: T0 + 3 });
    expect((await Promise.all(replies)).map((reply) => reply.version)).toEqual(range(3, 102));
    expect(settled).toMatchObject({ version: 103, appended: 1, duplicate: false });
    await writer.close();
    expect(await journalSeqs('c-ws')).toEqual(range(1, 100));
    expect((await reader().runJournal('c-ws', 'run-1')).gaps).toEqual([]);
    expect((await reader().transcript('c-ws')).messages.at(-1)).toMatchObject({ role: 'assistant', content: rows[1]!.content });
  });

  it('keeps at most maxUnanswered messages pending: ready() waits for a reply', async () => {
    await startTurn('c-window');
    const writer = writerOf(worker().journalWriter({ maxUnanswered: 4 }));
    const replies: Promise<WriteResult>[] = [];
    for (let seq = 1; seq <= 40; seq += 1) {
      await writer.ready();
      expect(writer.pending).toBeLessThan(4);
      replies.push(writer.token('c-window', 'run-1', seq, 'x'));
    }
    expect(writer.pending).toBeGreaterThan(0);
    await Promise.all(replies);
    expect(writer.pending).toBe(0);
    expect(await journalSeqs('c-window')).toEqual(range(1, 40));
  });

  it('answers relaxed tokens durable: false', async () => {
    await startTurn('c-relaxed');
    const writer = writerOf(worker().journalWriter());
    expect(await writer.token('c-relaxed', 'run-1', 1, 'r', { relaxed: true })).toEqual({ sessionId: 'c-relaxed', version: 3, appended: 1, duplicate: false, durable: false });
    expect(await writer.token('c-relaxed', 'run-1', 2, 'd')).toEqual({ sessionId: 'c-relaxed', version: 4, appended: 1, duplicate: false });
  });

  it('rejects a refused message with its ChronicleProblem and carries on with the next', async () => {
    await startTurn('c-ws-refused');
    const writer = writerOf(worker().journalWriter());
    const refused = writer.settle('c-never-started', 'run-1', { rows: [], settledAt: T0 });
    const next = writer.token('c-ws-refused', 'run-1', 1, 'ok');
    await expect(refused).rejects.toBeInstanceOf(ChronicleProblem);
    await expect(refused).rejects.toMatchObject({ status: 404, code: 'SESSION_NOT_FOUND' });
    await expect(next).resolves.toMatchObject({ appended: 1 });
  });

  it('refuses a message over the size limit (the service closes with 1009) and delivers the ones around it', async () => {
    await startTurn('c-too-big');
    const writer = writerOf(worker().journalWriter({ reconnect: FAST_RECONNECT }));
    const [first, big, after] = [writer.token('c-too-big', 'run-1', 1, 'a'), writer.token('c-too-big', 'run-1', 2, 'x'.repeat(80_000)), writer.token('c-too-big', 'run-1', 3, 'b')];
    await expect(big).rejects.toMatchObject({ status: 413, code: 'MESSAGE_TOO_BIG' });
    await expect(Promise.all([first, after])).resolves.toHaveLength(2);
    expect(await journalSeqs('c-too-big')).toEqual([1, 3]);
  });

  it('fails every message with the refusal when the upgrade is refused (a read key)', async () => {
    const writer = writerOf(reader().journalWriter());
    await expect(writer.token('c-ws', 'run-1', 1, 'x')).rejects.toMatchObject({ status: 403, code: 'FORBIDDEN' });
    await expect(writer.token('c-ws', 'run-1', 2, 'x')).rejects.toMatchObject({ status: 403 });
  });
});

describe('when the ingest connection drops', () => {
  /** Streams tokens 1..count (the first answered before the rest: the connection is up), calling `midway` once `at` are sent; answers every reply. */
  async function streamTokens(writer: JournalWriter, sessionId: string, count: number, at: number, midway: () => unknown): Promise<WriteResult[]> {
    const replies: Promise<WriteResult>[] = [];
    let during: unknown;
    for (let seq = 1; seq <= count; seq += 1) {
      await writer.ready();
      replies.push(writer.token(sessionId, 'run-1', seq, ` t${seq}`, { createdAt: T0 + seq }));
      if (seq === 1) await replies[0];
      if (seq === at) during = midway();
    }
    await during;
    return Promise.all(replies);
  }

  it('reconnects and resends what the cut connection left unanswered, in order: each seq stored exactly once', async () => {
    await startTurn('c-cut');
    const proxy = await proxyTo(base);
    const writer = writerOf(client(KEYS.ingest, proxy.url).journalWriter({ maxUnanswered: 32, reconnect: FAST_RECONNECT }));
    const replies = await streamTokens(writer, 'c-cut', 300, 60, () => proxy.reset());
    expect(writer.connections).toBeGreaterThanOrEqual(2);
    expect(writer.resent).toBeGreaterThan(0);
    expect(replies.at(-1)).toMatchObject({ version: 302, appended: 1 });
    expect(await journalSeqs('c-cut')).toEqual(range(1, 300));
    expect(await reader().runJournal('c-cut', 'run-1')).toMatchObject({ lastSeq: 300, gaps: [] });
  });

  it('after the service closed with 1001 (shutdown), resends to the replica that takes its place', async () => {
    const own = await startTestApp();
    let replica: NestFastifyApplication | undefined;
    try {
      await own.app.listen(0, '127.0.0.1');
      const port = (own.app.getHttpServer().address() as AddressInfo).port;
      const url = `http://127.0.0.1:${port}`;
      await startTurn('c-bye', 'run-1', url);
      const writer = writerOf(client(KEYS.ingest, url).journalWriter({ reconnect: FAST_RECONNECT }));
      const takeOver = async () => {
        await own.app.close();
        const config = loadConfig({ LOG_LEVEL: 'silent', CHRONICLE_RECOVERY_INTERVAL_MS: '0', DATABASE_URL: own.database.url , CHRONICLE_MASTER_KEY: TEST_MASTER_KEY });
        replica = await createApp({ config, databaseUrl: own.database.url, keys: parseApiKeys(TEST_KEYS_SPEC) });
        await replica.listen(port, '127.0.0.1');
      };
      // What the service read before 1001 it answered; what it did not, the writer sends again to the replica.
      await streamTokens(writer, 'c-bye', 200, 20, takeOver);
      // Sent after the replica took over: only a new connection can answer these.
      await Promise.all(range(201, 220).map((seq) => writer.token('c-bye', 'run-1', seq, ` t${seq}`, { createdAt: T0 + seq })));
      expect(writer.connections).toBeGreaterThanOrEqual(2);
      expect(await journalSeqs('c-bye', url)).toEqual(range(1, 220));
      await writer.close();
    } finally {
      await replica?.close();
      await own.database.drop();
    }
  });
});

describe('watch()', () => {
  /** A turn streamed over a JournalWriter: the submission, `tokens` tokens, the settle. */
  async function streamTurn(sessionId: string, runId: string, tokens: number, at: number): Promise<void> {
    const writer = writerOf(worker().journalWriter());
    await writer.submit(sessionId, { runId, text: `question ${runId}`, submittedAt: at });
    const replies = range(1, tokens).map((seq) => writer.token(sessionId, runId, seq, ` ${runId}-${seq}`, { createdAt: at + seq / 1000 }));
    await Promise.all(replies);
    const rows = [
      { role: 'user' as const, content: `question ${runId}`, timestamp: at },
      { role: 'assistant' as const, content: range(1, tokens).map((seq) => ` ${runId}-${seq}`).join(''), timestamp: at + 1 },
    ];
    await writer.settle(sessionId, runId, { rows, settledAt: at + 1 });
    await writer.close();
  }

  async function startWithRows(sessionId: string, count: number): Promise<void> {
    await worker().startSession({ sessionId, createdAt: T0 });
    await worker().recordMessages(sessionId, range(1, count).map((n) => ({ role: n % 2 === 1 ? ('user' as const) : ('assistant' as const), content: `row ${n}`, timestamp: T0 + n })));
  }

  /** Waits until the watcher holds the version the service serves now, and answers both. */
  async function caughtUp(watch: ReturnType<typeof collect>, sessionId: string, baseUrl = base) {
    const served = await client(KEYS.read, baseUrl).transcript(sessionId);
    await pollUntil(`the watcher at version ${served.version}`, () => watch.last()?.version, (version) => version === served.version, { timeoutMs: 15_000 });
    return { served, held: watch.last()! };
  }

  it('follows a streamed turn, token by token, to the transcript and hash GET …/transcript serves', async () => {
    await startWithRows('c-watch', 3);
    const watch = collect(reader().watch('c-watch'));
    await pollUntil('the first state', () => watch.states.length, (n) => n >= 1);
    await streamTurn('c-watch', 'run-a', 30, T0 + 100);
    const { served, held } = await caughtUp(watch, 'c-watch');
    expect(held.messages).toEqual(served.messages);
    expect(held.toolCards).toEqual(served.toolCards);
    expect(held.hash).toBe(served.hash);
    expect(watch.states.every((state) => state.source === 'patch')).toBe(true);
    // The pending turn's output, as patches carried it while it streamed (how many versions the feed coalesced
    // depends on the machine's speed: any token's text will do).
    expect(watch.states.some((state) => /run-a-\d+/.test(state.streaming?.text ?? ''))).toBe(true);
    const versions = watch.states.map((state) => state.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
  });

  it('resumes a cut stream after the version it held (Last-Event-ID) and still ends at the served transcript', async () => {
    await startWithRows('c-watch-cut', 4);
    const proxy = await proxyTo(base);
    const watcher = client(KEYS.read, proxy.url).watch('c-watch-cut', { reconnect: FAST_RECONNECT });
    const watch = collect(watcher);
    await streamTurn('c-watch-cut', 'run-a', 5, T0 + 100);
    const before = await caughtUp(watch, 'c-watch-cut');
    const cutAt = watch.states.length;
    proxy.reset();
    await streamTurn('c-watch-cut', 'run-b', 5, T0 + 200);
    const { served, held } = await caughtUp(watch, 'c-watch-cut');
    expect(watcher.connections).toBeGreaterThanOrEqual(2);
    // The first state after the cut is a patch from the version held, not the whole transcript again (since 0).
    expect(watch.states[cutAt]).toMatchObject({ source: 'patch', since: before.held.version });
    expect(held.messages).toEqual(served.messages);
    expect(held.hash).toBe(served.hash);
    expect(watcher.refetches).toBe(0);
  });

  it('re-fetches the whole transcript when a patch does not hash to the served hash, then follows patches from it', async () => {
    await startWithRows('c-watch-bad', 4);
    const { version } = await reader().transcript('c-watch-bad');
    // A cache that holds the right version with a wrong row: the first patch from it cannot verify.
    const stale: TranscriptState = {
      sessionId: 'c-watch-bad',
      view: 'display',
      version,
      messages: [1, 2, 3, 4].map((n) => ({ role: 'user', content: n === 2 ? 'tampered' : `row ${n}`, timestamp: T0 + n })),
      toolCards: [],
      markers: [],
      hash: 'stale',
      streaming: null,
      source: 'transcript',
      since: 0,
    };
    const watcher = reader().watch('c-watch-bad', { resumeFrom: stale, reconnect: FAST_RECONNECT });
    const watch = collect(watcher);
    await worker().recordMessages('c-watch-bad', [{ role: 'user', content: 'row 5', timestamp: T0 + 5 }]);
    await pollUntil('the whole transcript fetched', () => watch.states.length, (n) => n >= 1);
    expect(watch.states[0]).toMatchObject({ source: 'transcript', version: version + 1 });
    await worker().recordMessages('c-watch-bad', [{ role: 'assistant', content: 'row 6', timestamp: T0 + 6 }]);
    const { served, held } = await caughtUp(watch, 'c-watch-bad');
    expect(held).toMatchObject({ source: 'patch', since: version + 1 });
    expect(held.messages).toEqual(served.messages);
    expect(held.hash).toBe(served.hash);
    expect(watcher.refetches).toBe(1);
  });

  it('ends with the ChronicleProblem of a session that was never started', async () => {
    const watch = collect(reader().watch('c-never-started'));
    await expect(watch.done).rejects.toMatchObject({ status: 404, code: 'SESSION_NOT_FOUND' });
  });
});
