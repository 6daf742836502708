import { useEffect, useState } from 'react';
import { t } from '../i18n';
import { useSession } from './session';

/**
 * Says when the browser goes offline and when it is back. Back online, the event stream reconnects
 * at once and resumes from the last event it saw, so the board catches up with what it missed.
 */
export function NetworkBanner() {
  const { live } = useSession();
  const [state, setState] = useState<'online' | 'offline' | 'back'>(() => (navigator.onLine ? 'online' : 'offline'));
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const offline = () => {
      clearTimeout(timer);
      setState('offline');
    };
    const online = () => {
      setState('back');
      live.reconnectNow();
      timer = setTimeout(() => setState('online'), 4000);
    };
    window.addEventListener('offline', offline);
    window.addEventListener('online', online);
    return () => {
      clearTimeout(timer);
      window.removeEventListener('offline', offline);
      window.removeEventListener('online', online);
    };
  }, [live]);
  if (state === 'online') return null;
  return (
    <div className={`network-banner ${state === 'back' ? 'online' : ''}`} role="status" data-testid="network-banner">
      {t(state === 'offline' ? 'network.offline' : 'network.online')}
    </div>
  );
}
