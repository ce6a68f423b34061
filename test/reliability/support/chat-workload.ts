import pg from 'pg';
import { toSessionStreamId } from '#domain';
import { KEYS } from '../../support/app.js';
import { sendUntilAcknowledged, type Tally } from './retrying-client.js';

export interface WorkloadSize {
  readonly runsPerClient: number;
  readonly eventsPerRun: number;
  readonly batch: number;
  /** Every other journal batch sent `durability: "relaxed"` (tokens acknowledged before their commit is flushed). */
  readonly relaxedTokens?: boolean;
}

/** What one client was told was stored: its session, the runs submitted and settled, the journal seqs. */
export interface Acknowledged {
  readonly sessionId: string;
  readonly runs: string[];
  readonly settled: string[];
  readonly journal: Map<string, number[]>;
}

/**
 * One chat as a gateway and a worker drive it: a session, then per turn a submission, its journal in batches
 * and a settle, each write retried with the same natural keys until it is acknowledged.
 */
export async function runChat(base: () => string, sessionId: string, size: WorkloadSize, tally: Tally): Promise<Acknowledged> {
  const acked: Acknowledged = { sessionId, runs: [], settled: [], journal: new Map() };
  await sendUntilAcknowledged(base, '/v1/sessions', { sessionId, title: `chat ${sessionId}`, createdAt: 1_800_000_000 }, tally);
  for (let turn = 1; turn <= size.runsPerClient; turn += 1) {
    const runId = `${sessionId}-run-${turn}`;
    const at = 1_800_000_000 + turn * 10;
    const text = `question ${turn} of ${sessionId}`;
    await sendUntilAcknowledged(base, `/v1/sessions/${sessionId}/submissions`, { runId, text, submittedAt: at }, tally);
    acked.runs.push(runId);
    const seqs: number[] = [];
    for (let first = 1; first <= size.eventsPerRun; first += size.batch) {
      const events = [];
      const relaxed = size.relaxedTokens === true && ((first - 1) / size.batch) % 2 === 0;
      for (let seq = first; seq < first + size.batch && seq <= size.eventsPerRun; seq += 1) {
        events.push({ seq, event: 'token', payload: { text: `t${seq} ` }, createdAt: at + seq / 1000, ...(relaxed ? { durability: 'relaxed' } : {}) });
      }
      await sendUntilAcknowledged(base, `/v1/sessions/${sessionId}/runs/${runId}/journal`, { events }, tally);
      seqs.push(...events.map((e) => e.seq));
    }
    acked.journal.set(runId, seqs);
    const rows = [
      { role: 'user', content: text, timestamp: at },
      { role: 'assistant', content: `answer ${turn}`, timestamp: at + 5 },
    ];
    await sendUntilAcknowledged(base, `/v1/sessions/${sessionId}/runs/${runId}/settle`, { rows, settledAt: at + 5 }, tally);
    acked.settled.push(runId);
  }
  return acked;
}

export interface Verdict {
  acknowledgedEvents: number;
  losses: number;
  duplicates: number;
  auditMismatches: number;
}

/** Reads the store itself: every acknowledged submission, settle and (runId, seq) is there exactly once, and each session's audit matches. */
export async function verifyChats(databaseUrl: string, base: string, chats: readonly Acknowledged[]): Promise<Verdict> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const verdict: Verdict = { acknowledgedEvents: 0, losses: 0, duplicates: 0, auditMismatches: 0 };
  try {
    for (const chat of chats) {
      const { rows } = await client.query<{ type: string; key: string; n: number }>(
        `SELECT type, coalesce(data->>'runId', '') || ':' || coalesce(data->>'seq', '') AS key, count(*)::int AS n
           FROM events WHERE stream_id = $1 GROUP BY 1, 2`,
        [toSessionStreamId(chat.sessionId)],
      );
      const stored = new Map(rows.map((row) => [`${row.type} ${row.key}`, row.n]));
      verdict.duplicates += rows.filter((row) => row.n > 1).length;
      const expected = [
        ...chat.runs.map((runId) => `UserMessageSubmitted ${runId}:`),
        ...chat.settled.map((runId) => `TurnSettled ${runId}:`),
        ...[...chat.journal].flatMap(([runId, seqs]) => seqs.map((seq) => `JournalEventRecorded ${runId}:${seq}`)),
      ];
      verdict.acknowledgedEvents += expected.length;
      verdict.losses += expected.filter((key) => stored.get(key) !== 1).length;
      const audit = await fetch(`${base}/v1/sessions/${chat.sessionId}/audit`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEYS.admin}` },
      }).then((res) => res.json() as Promise<{ match: boolean; chain: { ok: boolean } }>);
      if (!audit.match || !audit.chain.ok) verdict.auditMismatches += 1;
    }
  } finally {
    await client.end();
  }
  return verdict;
}
