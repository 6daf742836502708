import { queryOptions } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api/client';
import { pageOf, pagedQuery } from '../common/paging';

export type Notification = Schemas['Notification'];

export const notificationKeys = {
  all: ['notifications'] as const,
  unread: ['notifications', 'unread'] as const,
  list: (unreadOnly: boolean) => ['notifications', 'list', unreadOnly] as const,
};

const PAGE = 20;

/** The unread count is the list's X-Total-Count: one row fetched, whatever the count. */
export const unreadCountQuery = queryOptions({
  queryKey: notificationKeys.unread,
  queryFn: async () => (await pageOf(api.GET('/notifications', { params: { query: { read: false, limit: 1 } } }), 0)).total,
});

export const notificationsQuery = (unreadOnly: boolean) =>
  pagedQuery(notificationKeys.list(unreadOnly), (offset) =>
    pageOf(api.GET('/notifications', { params: { query: { limit: PAGE, offset, ...(unreadOnly ? { read: false } : {}) } } }), offset),
  );

export const markRead = (id: number, read: boolean) => call(api.PATCH('/notifications/{notificationId}/read', { params: { path: { notificationId: id } }, body: { read } }));
export const markAllRead = () => call(api.PATCH('/notifications/read', { body: {} }));

/** Where clicking a notification leads: its task on the board, the webhooks page for a disabled webhook. */
export function notificationTarget(n: Pick<Notification, 'type' | 'taskId' | 'projectId'>): string | null {
  if (n.taskId !== null && n.projectId !== null) return `/projects/${n.projectId}/tasks/${n.taskId}`;
  if (n.type === 'webhook.disabled') return '/settings/webhooks';
  return null;
}

/** The badge's text: the count, capped so the header keeps its size. */
export const badgeText = (count: number) => (count > 99 ? '99+' : String(count));
