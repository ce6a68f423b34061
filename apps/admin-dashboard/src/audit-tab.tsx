import { useState } from 'react';
import type { SessionAudit } from './api';
import type { Auth } from './app';
import { Empty, ProblemView } from './problem-view';

export function AuditResult({ audit }: { audit: SessionAudit }) {
  return (
    <div className={`audit-result ${audit.match ? 'ok' : 'bad'}`} data-testid="audit-result">
      <div className="audit-verdict">
        <span className={`badge ${audit.match ? 'ok' : 'bad'}`}>{audit.match ? 'match' : 'mismatch'}</span>
        <span>
          {audit.match ? 'Every read model equals a replay of the events.' : `${audit.differences.length} difference(s) between what is stored and a replay.`}
        </span>
      </div>
      <dl className="facts">
        <div>
          <dt>Version</dt>
          <dd>{audit.version}</dd>
        </div>
        <div>
          <dt>Hash chain</dt>
          <dd>{audit.chain.ok ? 'intact' : `broken at version ${audit.chain.firstBrokenVersion}`}</dd>
        </div>
        <div>
          <dt>Stored hash</dt>
          <dd>
            <code>{audit.storedHash ?? '—'}</code>
          </dd>
        </div>
        <div>
          <dt>Replayed hash</dt>
          <dd>
            <code>{audit.replayedHash ?? '—'}</code>
          </dd>
        </div>
      </dl>
      {audit.differences.length > 0 && <pre className="differences">{JSON.stringify(audit.differences, null, 2)}</pre>}
    </div>
  );
}

export function AuditTab({ auth, sessionId }: { auth: Auth; sessionId: string }) {
  const [audit, setAudit] = useState<SessionAudit | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  if (!auth.isAdmin) return <Empty title="Audits need an admin key">You signed in with a read key: the session audit replays the store and is for admins.</Empty>;
  const run = async () => {
    setBusy(true);
    setError(undefined);
    try {
      setAudit(await auth.api.call(auth.api.http.POST('/v1/sessions/{id}/audit', { params: { path: { id: sessionId } } })));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="card">
      <div className="run-head">
        <h2>Session audit</h2>
        <button type="button" className="primary" onClick={run} disabled={busy}>
          {busy ? 'Auditing…' : audit ? 'Run again' : 'Run audit'}
        </button>
      </div>
      <p className="muted">Verifies the stream’s hash chain, rebuilds every read model of this session from its events alone and compares it with what is stored.</p>
      {error !== undefined && <ProblemView error={error} />}
      {audit && <AuditResult audit={audit} />}
    </div>
  );
}
