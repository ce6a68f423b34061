import { useCallback, useEffect, useState } from 'react';
import { Api, ApiError, type Scope } from './api';
import { OperationsPage } from './operations-page';
import { ProblemView } from './problem-view';
import { useRoute } from './router';
import { SessionPage } from './session-page';
import { SessionsPage } from './sessions-page';
import { SignIn } from './sign-in';

/** The key lives in this tab's session storage only: never in the URL, a cookie or a log line. */
const KEY_STORAGE = 'chronicle.admin.key';

export interface Auth {
  readonly api: Api;
  readonly scopes: readonly Scope[];
  readonly isAdmin: boolean;
}

export function App() {
  const [auth, setAuth] = useState<Auth | null>(null);
  const [restoring, setRestoring] = useState(() => sessionStorage.getItem(KEY_STORAGE) !== null);
  /** Why the tab's stored key could not be checked (the service busy or unreachable): the key is kept. */
  const [restoreError, setRestoreError] = useState<unknown>(undefined);
  const route = useRoute();

  const signIn = useCallback(async (key: string) => {
    const api = new Api(key);
    const scopes = await api.scopes();
    sessionStorage.setItem(KEY_STORAGE, key);
    setAuth({ api, scopes, isAdmin: scopes.includes('admin') });
  }, []);
  const signOut = useCallback(() => {
    sessionStorage.removeItem(KEY_STORAGE);
    setAuth(null);
  }, []);

  /**
   * Signs in again with the key this tab stored (a reload). Only the service refusing the key (401, 403) forgets
   * it; an answer that says nothing of the key (a 503, no answer at all) keeps it, says what happened and offers
   * to try again.
   */
  const restore = useCallback(() => {
    const stored = sessionStorage.getItem(KEY_STORAGE);
    if (stored === null) return setRestoring(false);
    setRestoring(true);
    setRestoreError(undefined);
    signIn(stored)
      .catch((error: unknown) => {
        const refused = error instanceof ApiError && (error.problem.status === 401 || error.problem.status === 403);
        if (refused) sessionStorage.removeItem(KEY_STORAGE);
        else setRestoreError(error);
      })
      .finally(() => setRestoring(false));
  }, [signIn]);
  useEffect(() => {
    restore();
  }, [restore]);

  if (restoring) return <div className="boot" aria-busy="true" />;
  if (!auth && restoreError !== undefined) {
    return (
      <div className="signin">
        <section className="card signin-card" aria-labelledby="restore-title">
          <h1 id="restore-title">
            Chronicle <span>admin</span>
          </h1>
          <p className="muted">The key kept in this tab could not be checked: the service did not say whether it is valid. It is still kept.</p>
          <ProblemView error={restoreError} />
          <button type="button" className="primary" onClick={restore}>
            Try again
          </button>
          <button type="button" className="ghost" onClick={() => (setRestoreError(undefined), signOut())}>
            Sign in with another key
          </button>
        </section>
      </div>
    );
  }
  if (!auth) return <SignIn onSignIn={signIn} />;
  return (
    <div className="shell">
      <header className="topbar">
        <a className="brand" href="#/">
          Chronicle <span>admin</span>
        </a>
        <nav aria-label="Main">
          <a href="#/" aria-current={route.page !== 'operations' ? 'page' : undefined}>
            Sessions
          </a>
          {auth.isAdmin && (
            <a href="#/operations" aria-current={route.page === 'operations' ? 'page' : undefined}>
              Operations
            </a>
          )}
        </nav>
        <span className="scope-badge" title="Scopes of the key you signed in with">
          {auth.isAdmin ? 'admin' : 'read only'}
        </span>
        <button type="button" className="ghost" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main>
        {route.page === 'sessions' && <SessionsPage auth={auth} params={route.params} />}
        {route.page === 'session' && <SessionPage key={route.sessionId} auth={auth} sessionId={route.sessionId} tab={route.tab} />}
        {route.page === 'operations' && <OperationsPage auth={auth} />}
      </main>
    </div>
  );
}
