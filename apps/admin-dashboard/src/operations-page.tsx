import { useEffect, useState } from 'react';
import type { AuditJob, StoreAudit } from './api';
import type { Auth } from './app';
import { preview } from './format';
import { Empty, ProblemView } from './problem-view';

function useAction<T>(action: () => Promise<T>) {
  const [result, setResult] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [startedAt, setStartedAt] = useState<number | null>(null);
  const run = async () => {
    setStartedAt(Date.now());
    setError(undefined);
    try {
      setResult(await action());
    } catch (failure) {
      setError(failure);
    } finally {
      setStartedAt(null);
    }
  };
  return { result, error, busy: startedAt !== null, startedAt, run };
}

function Elapsed({ since }: { since: number }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 200);
    return () => clearInterval(timer);
  }, []);
  return <span className="muted small">{((now - since) / 1000).toFixed(1)} s</span>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts the whole-store audit job (or joins the running one) and follows it until it ends. */
async function runStoreAudit(auth: Auth, onProgress: (job: AuditJob) => void): Promise<StoreAudit> {
  // The job form (202 at once), to show its progress: without `Prefer: respond-async` the service answers only
  // once the audit has run (200 with the result), which is taken as it is should it ever come.
  const started = await auth.api.call(auth.api.http.POST('/v1/audit', { params: { header: { Prefer: 'respond-async' } } }));
  if (!('status' in started)) return started;
  let job: AuditJob = started;
  while (job.status === 'running') {
    onProgress(job);
    await sleep(300);
    job = await auth.api.call(auth.api.http.GET('/v1/audit/{jobId}', { params: { path: { jobId: job.jobId } } }));
  }
  if (job.status === 'failed' || job.result === null) throw new Error(job.error ?? 'the audit failed');
  return job.result;
}

function JobProgress({ job }: { job: AuditJob | null }) {
  if (job === null) return null;
  const { sessions, totalSessions, events, eventsPerSecond, etaSeconds } = job.progress;
  return (
    <span className="muted small" data-testid="store-audit-progress">
      {sessions}
      {totalSessions !== null ? ` of ${totalSessions}` : ''} sessions, {events} events, {Math.round(eventsPerSecond)}/s
      {etaSeconds !== null ? `, about ${Math.ceil(etaSeconds)} s left` : ''}
    </span>
  );
}

/** Admin only: the whole-store audit and a recovery sweep. */
export function OperationsPage({ auth }: { auth: Auth }) {
  const [job, setJob] = useState<AuditJob | null>(null);
  const audit = useAction(() => runStoreAudit(auth, setJob).finally(() => setJob(null)));
  const sweep = useAction(() => auth.api.call(auth.api.http.POST('/v1/recovery/sweep')));
  if (!auth.isAdmin) return <Empty title="Operations need an admin key" />;
  return (
    <section className="page">
      <div className="page-head">
        <h1>Operations</h1>
      </div>
      <div className="ops">
        <div className="card">
          <div className="run-head">
            <h2>Whole-store audit</h2>
            <button type="button" className="primary" onClick={audit.run} disabled={audit.busy}>
              {audit.busy ? 'Auditing…' : 'Audit every session'}
            </button>
          </div>
          <p className="muted">Replays every session from its events and compares each stored view. Takes a while on a large store.</p>
          {audit.busy && audit.startedAt !== null && (
            <div className="progress" role="progressbar" aria-label="Audit in progress">
              <div className="progress-bar" />
              <Elapsed since={audit.startedAt} />
              <JobProgress job={job} />
            </div>
          )}
          {audit.error !== undefined && <ProblemView error={audit.error} />}
          {audit.result && (
            <div className={`audit-result ${audit.result.mismatches.length ? 'bad' : 'ok'}`} data-testid="store-audit-result">
              <div className="audit-verdict">
                <span className={`badge ${audit.result.mismatches.length ? 'bad' : 'ok'}`}>{audit.result.mismatches.length ? 'mismatch' : 'match'}</span>
                <span>
                  {audit.result.sessions} sessions, {audit.result.eventsReplayed} events replayed in {audit.result.seconds.toFixed(2)} s; {audit.result.mismatches.length} mismatch(es).
                </span>
              </div>
              {audit.result.mismatches.length > 0 && (
                <ul>
                  {audit.result.mismatches.map((m, i) => (
                    <li key={i}>
                      <code>{preview(m, 300)}</code>
                    </li>
                  ))}
                </ul>
              )}
            </div>
          )}
        </div>
        <div className="card">
          <div className="run-head">
            <h2>Recovery sweep</h2>
            <button type="button" className="primary" onClick={sweep.run} disabled={sweep.busy}>
              {sweep.busy ? 'Sweeping…' : 'Run a sweep now'}
            </button>
          </div>
          <p className="muted">Runs the recovery supervisor once over every session with a pending turn or a pending marker, as of the real clock.</p>
          {sweep.error !== undefined && <ProblemView error={sweep.error} />}
          {sweep.result && (
            <dl className="facts" data-testid="sweep-result">
              <div>
                <dt>Examined</dt>
                <dd>{sweep.result.examined}</dd>
              </div>
              <div>
                <dt>Interrupted</dt>
                <dd>{sweep.result.interrupted}</dd>
              </div>
              <div>
                <dt>Recovered from agent store</dt>
                <dd>{sweep.result.recoveredFromAgentStore}</dd>
              </div>
              <div>
                <dt>Gave up</dt>
                <dd>{sweep.result.gaveUp}</dd>
              </div>
            </dl>
          )}
        </div>
      </div>
    </section>
  );
}
