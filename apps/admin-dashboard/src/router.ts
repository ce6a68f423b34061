import { useEffect, useState } from 'react';

/**
 * Hash routes (`#/sessions/<id>/timeline`): the page is one static file, so no server-side fallback is needed,
 * and nothing secret ever enters the location.
 */
export type Route =
  | { readonly page: 'sessions'; readonly params: URLSearchParams }
  | { readonly page: 'session'; readonly sessionId: string; readonly tab: SessionTab }
  | { readonly page: 'operations' };

export const SESSION_TABS = ['transcript', 'timeline', 'runs', 'audit'] as const;
export type SessionTab = (typeof SESSION_TABS)[number];

export function parseRoute(hash: string): Route {
  const [pathPart, query = ''] = hash.replace(/^#/, '').split('?');
  const parts = pathPart.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'sessions' && parts[1]) {
    const tab = (SESSION_TABS as readonly string[]).includes(parts[2]) ? (parts[2] as SessionTab) : 'transcript';
    return { page: 'session', sessionId: parts[1], tab };
  }
  if (parts[0] === 'operations') return { page: 'operations' };
  return { page: 'sessions', params: new URLSearchParams(query) };
}

export const sessionHref = (sessionId: string, tab: SessionTab = 'transcript') => `#/sessions/${encodeURIComponent(sessionId)}${tab === 'transcript' ? '' : `/${tab}`}`;

export function useRoute(): Route {
  const [hash, setHash] = useState(() => window.location.hash);
  useEffect(() => {
    const onChange = () => setHash(window.location.hash);
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return parseRoute(hash);
}
