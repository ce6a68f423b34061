import { type FormEvent, useState } from 'react';
import { ApiError } from './api';
import { ProblemView } from './problem-view';

export function SignIn({ onSignIn }: { onSignIn: (key: string) => Promise<void> }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onSignIn(key.trim());
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  const wrongKey = error instanceof ApiError && (error.problem.status === 401 || error.problem.status === 403);
  return (
    <div className="signin">
      <form className="card signin-card" onSubmit={submit} aria-labelledby="signin-title">
        <h1 id="signin-title">
          Chronicle <span>admin</span>
        </h1>
        <p className="muted">Sign in with an API key of scope read or admin. It is kept in this tab only, until you sign out or close it.</p>
        <label htmlFor="api-key">API key</label>
        <input id="api-key" name="api-key" type="password" autoComplete="off" spellCheck={false} autoFocus required value={key} onChange={(e) => setKey(e.target.value)} />
        {error !== null && (
          <>
            {wrongKey && <p className="signin-wrong">That key was refused.</p>}
            <ProblemView error={error} />
          </>
        )}
        <button type="submit" className="primary" disabled={busy || key.trim() === ''}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </div>
  );
}
