import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { session, setUnauthorizedHandler } from '../api/client';
import { LiveStream, type LiveStatus } from '../live/stream';
import { applyToCache } from '../live/sync';
import { signOutHereAndAtProvider } from './oidcSignOut';

interface SessionState {
  signedIn: boolean;
  signIn(value: string): void;
  signOut(): Promise<void>;
  live: LiveStream;
  /** After an organization switch: every cache and the stream belong to the old one. */
  switched(): void;
}

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const client = useQueryClient();
  const [signedIn, setSignedIn] = useState(() => session.get() !== null);
  const live = useMemo(() => new LiveStream(session.get, () => void client.invalidateQueries()), [client]);

  const forget = useCallback(() => {
    session.clear();
    live.stop();
    client.clear();
    setSignedIn(false);
  }, [client, live]);

  useEffect(() => {
    setUnauthorizedHandler(forget);
    return live.onEvent((e) => applyToCache(client, e));
  }, [client, live, forget]);

  useEffect(() => {
    if (signedIn) live.start();
    return () => live.stop();
  }, [signedIn, live]);

  const value = useMemo<SessionState>(
    () => ({
      signedIn,
      live,
      signIn(value) {
        session.set(value);
        client.clear();
        setSignedIn(true);
      },
      async signOut() {
        await signOutHereAndAtProvider().catch(() => {});
        forget();
      },
      switched() {
        client.clear();
        live.restart();
      },
    }),
    [signedIn, live, client, forget],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}

export function useLiveStatus(): LiveStatus {
  const { live } = useSession();
  const [status, setStatus] = useState(live.status);
  useEffect(() => live.onStatus(setStatus), [live]);
  return status;
}
