import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useInfiniteQuery } from '@tanstack/react-query';
import { noop, useAction } from '../common/action';
import { LoadMore } from '../common/LoadMore';
import { itemsOf } from '../common/paging';
import { ago, when } from '../common/time';
import { markAllRead, markRead, notificationKeys, notificationsQuery, notificationTarget, type Notification } from './model';
import { t } from '../i18n';
import { errorText } from '../common/toast';

/** The bell's list: newest first, paged; opening one marks it read and goes to its task. */
export function NotificationPanel({ id, unread, onClose }: { id: string; unread: number; onClose: () => void }) {
  const [unreadOnly, setUnreadOnly] = useState(false);
  const list = useInfiniteQuery(notificationsQuery(unreadOnly));
  const items = itemsOf(list.data);
  const run = useAction();
  const navigate = useNavigate();
  const setRead = (n: Notification, read: boolean) => run(() => markRead(n.id, read), notificationKeys.all).catch(noop);

  function open(n: Notification) {
    if (!n.read) void setRead(n, true);
    const target = notificationTarget(n);
    if (!target) return;
    onClose();
    navigate(target);
  }

  return (
    <section id={id} className="notifications-panel" aria-labelledby={`${id}-title`}>
      <header className="notifications-head">
        <h2 id={`${id}-title`}>{t('notifications.title')}</h2>
        <label>
          <input type="checkbox" checked={unreadOnly} onChange={(e) => setUnreadOnly(e.target.checked)} /> {t('notifications.unreadOnly')}
        </label>
        <button type="button" disabled={unread === 0} onClick={() => void run(markAllRead, notificationKeys.all).catch(noop)}>
          {t('notifications.markAll')}
        </button>
      </header>
      {list.isError && (
        <p className="form-error" role="alert">
          {errorText(list.error)}
        </p>
      )}
      {list.isSuccess && items.length === 0 && <p className="muted empty">{unreadOnly ? t('notifications.nothingUnread') : t('notifications.none')}</p>}
      <ul className="notification-list">
        {items.map((n) => (
          <li key={n.id} className={n.read ? 'notification' : 'notification unread'}>
            <button type="button" className="notification-open" onClick={() => open(n)}>
              <span className="notification-text">
                {!n.read && <span className="sr-only">{t('notifications.unread')} </span>}
                {n.text}
              </span>
              <time dateTime={n.createdAt} title={when(n.createdAt)}>
                {ago(n.createdAt)}
              </time>
            </button>
            <button type="button" className="ghost small" onClick={() => void setRead(n, !n.read)} aria-label={`${n.read ? 'Mark unread' : 'Mark read'}: ${n.text}`}>
              {n.read ? 'Unread' : 'Read'}
            </button>
          </li>
        ))}
      </ul>
      <LoadMore query={list} />
    </section>
  );
}
