import { type KeyboardEvent, useEffect, useRef, useState } from 'react';
import { ApiError, type SessionSummary, type View } from './api';
import type { Auth } from './app';
import { AuditTab } from './audit-tab';
import { formatTime } from './format';
import { ProblemView } from './problem-view';
import { RunsTab } from './runs-tab';
import { SESSION_TABS, type SessionTab, sessionHref } from './router';
import { StatusBadge } from './sessions-page';
import { TimelineTab } from './timeline-tab';
import { TranscriptList } from './transcript-view';
import { CONNECTION_NOTICE, isFinalStatus, useLiveTranscript } from './use-live-transcript';
import { useAsync } from './use-async';

/** A problem that asking again will not fix (the session is gone or erased, the key refused): the page is over. */
const isFinal = (error: unknown) => error instanceof ApiError && isFinalStatus(error.problem.status);

const statusOf = (s: SessionSummary) => s.status ?? (s.archived ? 'archived' : s.markers.pending > 0 ? 'recovering' : s.pendingTurn ? 'pending' : 'active');

function Tabs({ sessionId, tab }: { sessionId: string; tab: SessionTab }) {
  const refs = useRef<(HTMLAnchorElement | null)[]>([]);
  // Arrow keys move between tabs (the WAI tabs pattern); Enter follows the link.
  const onKey = (event: KeyboardEvent, index: number) => {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (!step) return;
    event.preventDefault();
    const next = (index + step + SESSION_TABS.length) % SESSION_TABS.length;
    refs.current[next]?.focus();
    window.location.hash = sessionHref(sessionId, SESSION_TABS[next]);
  };
  return (
    <nav className="tabs" role="tablist" aria-label="Session views">
      {SESSION_TABS.map((name, i) => (
        <a
          key={name}
          ref={(el) => {
            refs.current[i] = el;
          }}
          role="tab"
          aria-selected={tab === name}
          tabIndex={tab === name ? 0 : -1}
          href={sessionHref(sessionId, name)}
          onKeyDown={(e) => onKey(e, i)}
        >
          {name[0].toUpperCase() + name.slice(1)}
        </a>
      ))}
    </nav>
  );
}

function LiveTranscript({ auth, sessionId, summary, onVersion }: { auth: Auth; sessionId: string; summary: SessionSummary | undefined; onVersion: () => void }) {
  const [view, setView] = useState<View>('display');
  const live = useLiveTranscript(auth.api, sessionId, view);
  const held = live.held;
  const version = held?.version;
  useEffect(() => {
    if (version !== undefined) onVersion();
  }, [version, onVersion]);
  // The live feed ended for good (the session was erased, say): the summary is read again, and its answer
  // (410 SESSION_ERASED) replaces the whole page.
  const ended = live.error !== undefined;
  useEffect(() => {
    if (ended) onVersion();
  }, [ended, onVersion]);
  return (
    <div className="transcript-pane">
      <div className="toolbar">
        <div className="segmented" role="radiogroup" aria-label="Transcript view">
          {(['display', 'context'] as const).map((v) => (
            <button key={v} type="button" role="radio" aria-checked={view === v} className={view === v ? 'on' : ''} onClick={() => setView(v)}>
              {v}
            </button>
          ))}
        </div>
        <span className={`live-dot live-${live.connection}`} aria-live="polite">
          {live.connection === 'live' ? 'live' : live.connection === 'connecting' ? 'connecting…' : 'reconnecting…'}
        </span>
        {held && (
          <span className="muted small">
            version {held.version} · {held.messages.length} rows · <code title={held.hash}>{held.hash.slice(0, 12)}</code>
          </span>
        )}
      </div>
      {live.notice && (
        <div className="notice" role="status" data-testid="connection-notice">
          {CONNECTION_NOTICE}
        </div>
      )}
      {live.error !== undefined ? (
        <ProblemView error={live.error} />
      ) : held ? (
        <TranscriptList
          label={`Transcript, ${view} view`}
          messages={held.messages}
          toolCards={held.toolCards}
          markers={view === 'display' ? held.markers : null}
          streaming={held.streaming}
          pending={held.streaming ? summary?.pendingTurn ?? null : null}
        />
      ) : (
        <div className="loading" aria-busy="true">
          Loading transcript…
        </div>
      )}
    </div>
  );
}

export function SessionPage({ auth, sessionId, tab }: { auth: Auth; sessionId: string; tab: SessionTab }) {
  const summary = useAsync<SessionSummary>((signal) => auth.api.call(auth.api.http.GET('/v1/sessions/{id}', { params: { path: { id: sessionId } }, signal }), signal), [sessionId]);
  const { reload } = summary;
  // A problem that asking again will not fix (410 SESSION_ERASED, 404, a refused key) ends the page: only the
  // problem is shown, nothing of what the session was. A read that may do better next time (a 503, no answer)
  // is shown above the last summary read, and tried again.
  const gone = summary.error !== undefined && isFinal(summary.error);
  const failing = summary.error !== undefined && !gone;
  const lastRead = useRef<SessionSummary | undefined>(undefined);
  if (summary.data) lastRead.current = summary.data;
  else if (gone) lastRead.current = undefined;
  const s = gone ? undefined : summary.data ?? lastRead.current;
  // The header's counts follow the session while it is open: a small read per new version the live feed brings
  // (the transcript itself comes as patches), and every few seconds on the other tabs or after a failed read.
  useEffect(() => {
    if (gone || (tab === 'transcript' && !failing)) return;
    const timer = setInterval(() => document.visibilityState === 'visible' && reload(), 5000);
    return () => clearInterval(timer);
  }, [reload, tab, gone, failing]);
  return (
    <section className="page session-page">
      <div className="page-head">
        <a href="#/" className="back">
          ← Sessions
        </a>
        <h1>{s?.title || sessionId}</h1>
        {s && <StatusBadge status={statusOf(s)} />}
      </div>
      {s && (
        <dl className="facts">
          <div>
            <dt>Id</dt>
            <dd>
              <code>{s.sessionId}</code>
            </dd>
          </div>
          <div>
            <dt>Version</dt>
            <dd>{s.version}</dd>
          </div>
          <div>
            <dt>Messages</dt>
            <dd>{s.messageCount}</dd>
          </div>
          <div>
            <dt>Markers</dt>
            <dd>
              {s.markers.pending} pending · {s.markers.recovered} recovered · {s.markers.noOutput} no output · {s.markers.neutral} neutral
            </dd>
          </div>
          <div>
            <dt>Last activity</dt>
            <dd>{formatTime(s.lastActivityAt)}</dd>
          </div>
          {s.parentSessionId && (
            <div>
              <dt>Parent</dt>
              <dd>
                <a href={sessionHref(s.parentSessionId)}>{s.parentSessionId}</a>
              </dd>
            </div>
          )}
        </dl>
      )}
      {summary.error !== undefined && <ProblemView error={summary.error} />}
      {!gone && (
        <>
          <Tabs sessionId={sessionId} tab={tab} />
          <div className="tab-body" role="tabpanel">
            {tab === 'transcript' && <LiveTranscript auth={auth} sessionId={sessionId} summary={s} onVersion={reload} />}
            {tab === 'timeline' && <TimelineTab auth={auth} sessionId={sessionId} version={s?.version ?? 0} />}
            {tab === 'runs' && <RunsTab auth={auth} sessionId={sessionId} summary={s} />}
            {tab === 'audit' && <AuditTab auth={auth} sessionId={sessionId} />}
          </div>
        </>
      )}
    </section>
  );
}
