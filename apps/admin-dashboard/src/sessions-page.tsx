import { useEffect, useRef, useState } from 'react';
import { SESSION_STATUSES, type SessionPage, type SessionStatus } from './api';
import type { Auth } from './app';
import { formatAgo, formatTime } from './format';
import { Empty, ProblemView } from './problem-view';
import { sessionHref } from './router';
import { useAsync } from './use-async';

const PAGE_SIZE = 25;
const REFRESH_MS = 5000;

function setParams(status: string, q: string) {
  const params = new URLSearchParams();
  if (status) params.set('status', status);
  if (q) params.set('q', q);
  const query = params.toString();
  window.history.replaceState(null, '', `#/${query ? `?${query}` : ''}`);
}

export function StatusBadge({ status }: { status: SessionStatus | string | undefined }) {
  return <span className={`badge status-${status ?? 'active'}`}>{status ?? 'active'}</span>;
}

/** Sessions from the async index: filter, search, cursor paging; the page refreshes itself. */
export function SessionsPage({ auth, params }: { auth: Auth; params: URLSearchParams }) {
  const [status, setStatus] = useState(params.get('status') ?? '');
  const [q, setQ] = useState(params.get('q') ?? '');
  const [query, setQuery] = useState(q);
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors[cursors.length - 1];
  const search = useRef<HTMLInputElement>(null);

  useEffect(() => {
    const timer = setTimeout(() => setQuery(q.trim()), 250);
    return () => clearTimeout(timer);
  }, [q]);
  useEffect(() => {
    setCursors([null]);
    setParams(status, query);
  }, [status, query]);

  const page = useAsync<SessionPage>(
    (signal) => {
      // A status from the address bar goes as it is: the service says which ones it knows (a 400 problem).
      const params = { limit: PAGE_SIZE, status: (status || undefined) as SessionStatus | undefined, q: query || undefined, cursor: cursor ?? undefined };
      return auth.api.call(auth.api.http.GET('/v1/sessions', { params: { query: params }, signal }), signal);
    },
    [status, query, cursor],
  );
  const { reload } = page;
  useEffect(() => {
    const timer = setInterval(() => document.visibilityState === 'visible' && reload(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [reload]);

  // `/` jumps to the search box, as in most consoles.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === '/' && !(event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement)) {
        event.preventDefault();
        search.current?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  // Only the answer to the current status, search and page is ever shown: while another one loads, and once
  // the service refuses it (a search too long, an unknown status), the rows of the previous one are not theirs.
  const data = page.current ? page.data : undefined;
  const error = page.current ? page.error : undefined;
  const items = data?.items ?? [];
  const searchGoesOn = query !== '' && items.length < PAGE_SIZE && Boolean(data?.nextCursor);
  return (
    <section className="page">
      <div className="page-head">
        <h1>Sessions</h1>
        <span className="muted small" aria-live="polite">
          {page.loading ? 'Refreshing…' : `Refreshes every ${REFRESH_MS / 1000} s`}
        </span>
      </div>
      <div className="toolbar" role="search">
        <div className="segmented" role="radiogroup" aria-label="Status">
          {['', ...SESSION_STATUSES].map((s) => (
            <button key={s || 'all'} type="button" role="radio" aria-checked={status === s} className={status === s ? 'on' : ''} onClick={() => setStatus(s)}>
              {s || 'all'}
            </button>
          ))}
        </div>
        <input ref={search} type="search" className="search" placeholder="Search title or id  ( / )" aria-label="Search sessions by title or id" value={q} onChange={(e) => setQ(e.target.value)} />
      </div>
      {error !== undefined ? (
        <ProblemView error={error} />
      ) : !data ? (
        <div className="loading" aria-busy="true">
          Loading sessions…
        </div>
      ) : items.length === 0 ? (
        // A search reads a bounded number of sessions per page (their titles are sealed): an empty page that
        // names a next cursor has only not found one yet.
        searchGoesOn ? (
          <Empty title="No match among the sessions searched so far">Older → searches the older sessions.</Empty>
        ) : (
          <Empty title={status || query ? 'No session matches' : 'No sessions yet'}>
            {status || query ? 'Try another status or search.' : 'Sessions appear here once a gateway or an import starts one.'}
          </Empty>
        )
      ) : (
        <div className="table-wrap">
          <table className="table sessions-table">
            <thead>
              <tr>
                <th>Title</th>
                <th>Id</th>
                <th>Status</th>
                <th className="num">Messages</th>
                <th className="num">Markers</th>
                <th>Last activity</th>
              </tr>
            </thead>
            <tbody>
              {items.map((s) => {
                const markers = s.markers ? s.markers.pending + s.markers.recovered + s.markers.noOutput + s.markers.neutral : 0;
                return (
                  <tr key={s.sessionId}>
                    <td>
                      <a className="row-link" href={sessionHref(s.sessionId)}>
                        {s.title || <span className="muted">Untitled</span>}
                      </a>
                    </td>
                    <td>
                      <code>{s.sessionId}</code>
                    </td>
                    <td>
                      <StatusBadge status={s.status} />
                    </td>
                    <td className="num">{s.messageCount}</td>
                    <td className="num">{markers > 0 ? <span title={`${s.markers.pending} pending, ${s.markers.recovered} recovered, ${s.markers.noOutput} no output, ${s.markers.neutral} neutral`}>{markers}</span> : <span className="muted">0</span>}</td>
                    <td title={formatTime(s.lastActivityAt)}>{formatAgo(s.lastActivityAt)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <div className="pager">
        <button type="button" disabled={cursors.length === 1} onClick={() => setCursors((c) => c.slice(0, -1))}>
          ← Newer
        </button>
        <span className="muted small">
          Page {cursors.length}
          {searchGoesOn && items.length > 0 ? ' · the search stopped here; Older → goes on' : ''}
        </span>
        <button type="button" disabled={!data?.nextCursor} onClick={() => data?.nextCursor && setCursors((c) => [...c, data.nextCursor])}>
          Older →
        </button>
      </div>
    </section>
  );
}
