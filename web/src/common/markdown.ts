import { marked } from 'marked';
import DOMPurify from 'dompurify';

// An image the author gave no text is shown as decoration rather than read out as a file name.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'IMG' && !node.hasAttribute('alt')) node.setAttribute('alt', '');
});

/** Markdown to HTML that is safe to insert: marked renders, DOMPurify removes scripts, handlers and javascript: links. */
export function renderMarkdown(text: string): string {
  return DOMPurify.sanitize(marked.parse(text, { async: false, gfm: true, breaks: true }));
}
