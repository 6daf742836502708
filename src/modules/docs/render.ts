import sanitizeHtml from 'sanitize-html';
import { Marked } from 'marked';

const markdown = new Marked({ gfm: true, async: false });

// A whitelist, not a blacklist: anything not named here (script, style, iframe, object, form, every
// on* attribute, javascript:/data: URLs) is dropped, whatever spelling tricks the input uses.
const POLICY: sanitizeHtml.IOptions = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'del', 'ins', 'details', 'summary'],
  allowedAttributes: {
    a: ['href', 'name', 'title', 'target', 'rel'],
    img: ['src', 'alt', 'title', 'width', 'height', 'loading'],
    th: ['colspan', 'rowspan', 'align'],
    td: ['colspan', 'rowspan', 'align'],
    ol: ['start'],
    code: ['class'],
  },
  allowedClasses: { code: [/^language-[\w-]+$/] },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  // Links leaving a public page must not hand it a window reference.
  transformTags: { a: sanitizeHtml.simpleTransform('a', { rel: 'noopener noreferrer nofollow' }) },
};

/**
 * Content is stored as sent, HTML or Markdown. What goes to a browser is HTML: a source that starts
 * with a tag is taken as HTML, anything else is rendered as Markdown (GFM), and either way the
 * result passes the sanitizer.
 */
export function renderSafeHtml(content: string): string {
  const source = content.trimStart();
  const html = source.startsWith('<') ? content : (markdown.parse(content) as string);
  return sanitizeHtml(html, POLICY);
}
