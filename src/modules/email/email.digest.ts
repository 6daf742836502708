import type { LanguageCode } from '../users/users.schemas.js';
import { layout, PRODUCT_NAME, type Rendered } from './email.layout.js';

/** One notification as a digest shows it. */
export interface DigestItem {
  text: string;
  taskId: number | null;
  taskName: string | null;
  projectId: number | null;
  projectName: string | null;
}

const WORDS = {
  en: {
    one: (text: string) => text,
    many: (n: number) => `${n} new notifications in ${PRODUCT_NAME}`,
    greeting: (name: string) => `Hello ${name},`,
    intro: 'Here is what happened since the last message:',
    other: 'Other',
    open: `Open ${PRODUCT_NAME}`,
    why: 'You get these because of your notification email setting.',
    stop: (url: string) => `Stop notification emails: ${url}`,
  },
  ru: {
    one: (text: string) => text,
    many: (n: number) => `Новых уведомлений в ${PRODUCT_NAME}: ${n}`,
    greeting: (name: string) => `Здравствуйте, ${name}!`,
    intro: 'Вот что произошло с прошлого письма:',
    other: 'Прочее',
    open: `Открыть ${PRODUCT_NAME}`,
    why: 'Вы получаете эти письма по своей настройке уведомлений.',
    stop: (url: string) => `Отписаться от писем с уведомлениями: ${url}`,
  },
};

/** Notifications grouped by project, then task, each task linked; one message whatever their number. */
export function digest(lang: LanguageCode, name: string, items: DigestItem[], publicUrl: string, unsubscribe: string): Rendered {
  const w = WORDS[lang];
  const groups = new Map<string, { heading: string; items: Array<{ text: string; url: string }> }>();
  for (const item of items) {
    const heading = item.projectName ? (item.taskName ? `${item.projectName} / ${item.taskName}` : item.projectName) : w.other;
    const url =
      item.projectId && item.taskId
        ? `${publicUrl}/app/projects/${item.projectId}/tasks/${item.taskId}`
        : item.projectId
          ? `${publicUrl}/app/projects/${item.projectId}`
          : `${publicUrl}/app/`;
    const group = groups.get(heading) ?? { heading, items: [] };
    group.items.push({ text: item.text, url });
    groups.set(heading, group);
  }
  return layout(
    {
      subject: items.length === 1 ? w.one(items[0]!.text) : w.many(items.length),
      greeting: w.greeting(name),
      paragraphs: [w.intro],
      groups: [...groups.values()],
      action: { label: w.open, url: `${publicUrl}/app/` },
      footer: [w.why, w.stop(unsubscribe)],
    },
    publicUrl,
  );
}
