import type { LanguageCode } from '../users/users.schemas.js';

/** What goes out for one message: both bodies say the same thing. */
export interface Rendered {
  subject: string;
  text: string;
  html: string;
}

export const PRODUCT_NAME = 'Workboard';

/** The language a message to this user is written in: theirs when chosen, else English. */
export const languageOf = (chosen: string | null | undefined): LanguageCode => (chosen === 'ru' ? 'ru' : 'en');

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Every value put into HTML goes through this: names and titles are user input. */
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ENTITIES[c]!);

/** One message's content, before layout: paragraphs of plain text, an optional button, a footer. */
export interface Content {
  subject: string;
  greeting: string;
  paragraphs: string[];
  action?: { label: string; url: string };
  /** Smaller lines under the message (why it was sent, how to stop it). */
  footer?: string[];
  /** Grouped lines (a digest): a heading and its items, each with a link. */
  groups?: Array<{ heading: string; items: Array<{ text: string; url: string }> }>;
}

/**
 * The one layout of every message: the product name, the greeting, the paragraphs, the action as a
 * button with its URL written out too (a text client, a copy-paste), the footer. Plain text and
 * HTML come from the same content, the HTML escaped.
 */
export function layout(c: Content, publicUrl: string): Rendered {
  const text = [
    c.greeting,
    '',
    ...c.paragraphs.flatMap((p) => [p, '']),
    ...(c.groups ?? []).flatMap((g) => [g.heading, ...g.items.map((i) => `  - ${i.text}: ${i.url}`), '']),
    ...(c.action ? [`${c.action.label}: ${c.action.url}`, ''] : []),
    '-- ',
    `${PRODUCT_NAME} ${publicUrl}`,
    ...(c.footer ?? []),
  ].join('\n');
  const p = (s: string) => `<p style="margin:0 0 16px">${escapeHtml(s)}</p>`;
  const link = (url: string, label: string) => `<a href="${escapeHtml(url)}">${escapeHtml(label)}</a>`;
  const html = [
    '<!doctype html><html><head><meta charset="utf-8"></head>',
    '<body style="font-family:-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;font-size:15px;line-height:1.5;color:#1f2328">',
    `<div style="max-width:560px;margin:0 auto;padding:24px"><div style="font-weight:600;margin-bottom:24px">${link(publicUrl, PRODUCT_NAME)}</div>`,
    p(c.greeting),
    ...c.paragraphs.map(p),
    ...(c.groups ?? []).map(
      (g) => `<h3 style="margin:16px 0 8px;font-size:15px">${escapeHtml(g.heading)}</h3><ul>${g.items.map((i) => `<li>${link(i.url, i.text)}</li>`).join('')}</ul>`,
    ),
    ...(c.action
      ? [
          `<p style="margin:24px 0"><a href="${escapeHtml(c.action.url)}" style="background:#2563eb;color:#fff;padding:10px 18px;border-radius:6px;text-decoration:none">${escapeHtml(c.action.label)}</a></p>`,
          `<p style="font-size:13px;color:#57606a;word-break:break-all">${escapeHtml(c.action.url)}</p>`,
        ]
      : []),
    ...(c.footer ?? []).map((f) => `<p style="font-size:12px;color:#57606a;margin:8px 0 0">${escapeHtml(f)}</p>`),
    '</div></body></html>',
  ].join('\n');
  return { subject: c.subject, text, html };
}
