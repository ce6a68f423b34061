import { useCallback, useEffect, useState } from 'react';
import { Api, type Scope } from './api';
import { OperationsPage } from './operations-page';
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

  useEffect(() => {
    const stored = sessionStorage.getItem(KEY_STORAGE);
    if (stored === null) return;
    signIn(stored)
      .catch(() => sessionStorage.removeItem(KEY_STORAGE))
      .finally(() => setRestoring(false));
  }, [signIn]);

  if (restoring) return <div className="boot" aria-busy="true" />;
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
