import { useState } from 'react';
import { type EventPage, type Journal, type SessionSummary } from './api';
import type { Auth } from './app';
import { formatTime, preview, words } from './format';
import { Empty, ProblemView } from './problem-view';
import { useAsync } from './use-async';

/** The API lists no runs; they are named by the session's events (a submission, a journal, a decision). */
const SCAN_PAGES = 5;
const SCAN_LIMIT = 1000;

interface RunIndex {
  readonly runIds: readonly string[];
  readonly scanned: number;
  readonly complete: boolean;
}

async function findRuns(auth: Auth, sessionId: string, summary: SessionSummary | undefined, signal: AbortSignal): Promise<RunIndex> {
  const ids = new Set<string>();
  let after: number | null = 0;
  let scanned = 0;
  for (let page = 0; page < SCAN_PAGES && after !== null; page++) {
    const answer: EventPage = await auth.api.call(
      auth.api.http.GET('/v1/sessions/{id}/events', { params: { path: { id: sessionId }, query: { after, limit: SCAN_LIMIT } }, signal }),
      signal,
    );
    for (const event of answer.items) {
      const { runId } = event.data as { runId?: unknown };
      if (typeof runId === 'string') ids.add(runId);
    }
    scanned += answer.items.length;
    after = answer.nextAfter;
  }
  const markers = await auth.api.call(auth.api.http.GET('/v1/sessions/{id}/markers', { params: { path: { id: sessionId } }, signal }), signal);
  for (const marker of markers.items) ids.add(marker.runId);
  if (summary?.pendingTurn) ids.add(summary.pendingTurn.runId);
  return { runIds: [...ids], scanned, complete: after === null };
}

function JournalView({ journal }: { journal: Journal }) {
  const rows: { kind: 'event' | 'gap'; seq: number; to?: number; event?: Journal['events'][number] }[] = [];
  const gaps = [...journal.gaps].sort((a, b) => a[0] - b[0]);
  let g = 0;
  for (const event of journal.events) {
    while (g < gaps.length && gaps[g][0] < event.seq) rows.push({ kind: 'gap', seq: gaps[g][0], to: gaps[g++][1] });
    rows.push({ kind: 'event', seq: event.seq, event });
  }
  while (g < gaps.length) rows.push({ kind: 'gap', seq: gaps[g][0], to: gaps[g++][1] });
  if (rows.length === 0) return <Empty title="No journal events">The worker has not written to this run’s journal.</Empty>;
  return (
    <table className="table journal">
      <thead>
        <tr>
          <th className="num">Seq</th>
          <th>Event</th>
          <th>Payload</th>
          <th>Created</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) =>
          row.kind === 'gap' ? (
            <tr key={`gap-${row.seq}`} className="gap-row">
              <td className="num">{row.seq === row.to ? row.seq : `${row.seq}–${row.to}`}</td>
              <td colSpan={3}>missing: not arrived (yet)</td>
            </tr>
          ) : (
            <tr key={row.seq}>
              <td className="num">{row.seq}</td>
              <td>
                <code>{row.event!.event}</code>
              </td>
              <td className="payload">{preview(row.event!.payload, 140)}</td>
              <td className="muted">{formatTime(row.event!.createdAt)}</td>
            </tr>
          ),
        )}
      </tbody>
    </table>
  );
}

function Run({ auth, sessionId, runId }: { auth: Auth; sessionId: string; runId: string }) {
  const journal = useAsync<Journal>((signal) => auth.api.call(auth.api.http.GET('/v1/sessions/{id}/runs/{runId}/journal', { params: { path: { id: sessionId, runId } }, signal }), signal), [sessionId, runId]);
  const j = journal.data;
  return (
    <div className="card run">
      <div className="run-head">
        <h2>
          Run <code>{runId}</code>
        </h2>
        {j && (
          <>
            <span className={`badge terminal-${j.terminalState}`}>{words(j.terminalState)}</span>
            <span className="muted small">
              last seq {j.lastSeq} · {j.gaps.length === 0 ? 'no gaps' : `${j.gaps.length} gap${j.gaps.length > 1 ? 's' : ''}`}
            </span>
          </>
        )}
      </div>
      {journal.error !== undefined && <ProblemView error={journal.error} />}
      {j && <JournalView journal={j} />}
    </div>
  );
}

export function RunsTab({ auth, sessionId, summary }: { auth: Auth; sessionId: string; summary: SessionSummary | undefined }) {
  const index = useAsync<RunIndex>((signal) => findRuns(auth, sessionId, summary, signal), [sessionId, summary?.version]);
  const [open, setOpen] = useState<string | null>(null);
  if (index.error !== undefined) return <ProblemView error={index.error} />;
  if (!index.data) return <div className="loading">Finding runs…</div>;
  const { runIds, scanned, complete } = index.data;
  if (runIds.length === 0) return <Empty title="No runs">Runs appear once a turn is submitted or a worker journals.</Empty>;
  const shown = open ?? runIds[runIds.length - 1];
  return (
    <div className="runs">
      <div className="toolbar">
        <label htmlFor="run-select">Run</label>
        <select id="run-select" value={shown} onChange={(e) => setOpen(e.target.value)}>
          {runIds.map((id) => (
            <option key={id} value={id}>
              {id}
            </option>
          ))}
        </select>
        <span className="muted small">
          {runIds.length} run{runIds.length > 1 ? 's' : ''}
          {complete ? '' : ` (from the first ${scanned} events)`}
        </span>
      </div>
      <Run key={shown} auth={auth} sessionId={sessionId} runId={shown} />
    </div>
  );
}
