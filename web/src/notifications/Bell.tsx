import { useEffect, useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Bell as BellIcon } from 'lucide-react';
import { useSession } from '../shell/session';
import { badgeText, notificationKeys, unreadCountQuery } from './model';
import { NotificationPanel } from './NotificationPanel';
import './notifications.css';
import { t } from '../i18n';

/** The header's bell: the unread count, kept current by notification events; opens the list. */
export function NotificationBell() {
  const client = useQueryClient();
  const { live } = useSession();
  const { data: count = 0 } = useQuery(unreadCountQuery);
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);

  // notification.* events reach only their addressee: any of them changes this user's list or count.
  useEffect(() => live.onEvent((e) => e.type.startsWith('notification.') && void client.invalidateQueries({ queryKey: notificationKeys.all })), [live, client]);

  useEffect(() => {
    if (!open) return;
    const outside = (e: MouseEvent) => !root.current?.contains(e.target as Node) && setOpen(false);
    const escape = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener('mousedown', outside);
    document.addEventListener('keydown', escape);
    return () => {
      document.removeEventListener('mousedown', outside);
      document.removeEventListener('keydown', escape);
    };
  }, [open]);

  return (
    <div className="bell" ref={root}>
      <button
        ref={button}
        type="button"
        className="ghost bell-button"
        aria-expanded={open}
        aria-controls={open ? 'notifications-panel' : undefined}
        aria-label={count > 0 ? t('notifications.bellUnread', { count }) : t('notifications.bell')}
        onClick={() => setOpen(!open)}
      >
        <BellIcon aria-hidden="true" size={18} />
        {count > 0 && (
          <span className="bell-count" data-testid="unread-count" aria-hidden="true">
            {badgeText(count)}
          </span>
        )}
      </button>
      {open && <NotificationPanel id="notifications-panel" unread={count} onClose={() => setOpen(false)} />}
    </div>
  );
}
