import { useEffect, useRef, useState } from 'react';
import { t } from '../i18n';

/**
 * Registers the service worker (web/sw.js: the app shell only) in the production build, and when
 * a new version is installed and waiting, offers to reload into it.
 */
export function UpdatePrompt() {
  const [waiting, setWaiting] = useState<ServiceWorker | null>(null);
  const updating = useRef(false);
  useEffect(() => {
    if (!(import.meta as { env?: { PROD?: boolean } }).env?.PROD || !('serviceWorker' in navigator)) return;
    // Only the update asked for below reloads: the first worker taking control (clients.claim) does not.
    const onChange = () => {
      if (!updating.current) return;
      updating.current = false;
      location.reload();
    };
    navigator.serviceWorker.addEventListener('controllerchange', onChange);
    navigator.serviceWorker
      .register('/app/sw.js', { scope: '/app/' })
      .then((registration) => {
        const offer = () => registration.waiting && navigator.serviceWorker.controller && setWaiting(registration.waiting);
        offer();
        registration.addEventListener('updatefound', () => registration.installing?.addEventListener('statechange', offer));
        // A tab left open finds new versions too.
        const timer = setInterval(() => void registration.update().catch(() => {}), 30 * 60_000);
        return () => clearInterval(timer);
      })
      .catch(() => {});
    return () => navigator.serviceWorker.removeEventListener('controllerchange', onChange);
  }, []);
  if (!waiting) return null;
  return (
    <div className="update-prompt" role="status" data-testid="update-prompt">
      <span>{t('update.ready')}</span>
      <button type="button" className="primary" onClick={() => {
          updating.current = true;
          waiting.postMessage({ type: 'SKIP_WAITING' });
        }}>
        {t('update.reload')}
      </button>
    </div>
  );
}
