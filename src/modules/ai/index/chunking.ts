import { createHash } from 'node:crypto';
import { Lexer, type Token, type Tokens } from 'marked';

/**
 * Splits a document into passages for retrieval: a new passage at every heading, and within a
 * section at block boundaries (paragraphs, list items, table rows) once a passage holds about
 * TARGET_CHARS (≈ 300 tokens). Each passage keeps its title path ("Handbook › Deploys › Friday")
 * so a quoted passage says where it comes from, and so the path's words rank too.
 *
 * Content is stored as HTML or Markdown (docs/render.ts); HTML is first brought to Markdown's block
 * structure (headings, paragraphs), then both go through marked's lexer.
 */

export const TARGET_CHARS = 1200;
const MAX_CHARS = 1800;

export interface Chunk {
  heading: string;
  content: string;
}

/** The hash the index keeps per source; the SQL twin is `sourceHashSql` (same text, same digest). */
export const contentHash = (title: string, content: string): string => createHash('sha256').update(`${title}\n${content}`, 'utf8').digest('hex');

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };
const decode = (text: string) =>
  text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (all, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : all;
    }
    return ENTITIES[name.toLowerCase()] ?? all;
  });

/** HTML → the same block structure in Markdown: headings as `#`, blocks as blank lines, no tags. */
export function htmlToBlocks(html: string): string {
  return decode(
    html
      .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
      .replace(/<h([1-6])[^>]*>/gi, (_m, n: string) => `\n\n${'#'.repeat(Number(n))} `)
      .replace(/<\/h[1-6]>/gi, '\n\n')
      .replace(/<\/?(p|div|li|ul|ol|br|tr|table|blockquote|pre|section|article|details|summary)\b[^>]*>/gi, '\n\n')
      .replace(/<[^>]+>/g, ''),
  );
}

/** Inline Markdown → plain words: links keep their text, emphasis and code marks go. */
const plain = (text: string) =>
  decode(
    text
      .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .replace(/[*_~`]{1,3}/g, ''),
  )
    .replace(/[ \t]+/g, ' ')
    .trim();

function blockText(token: Token): string {
  switch (token.type) {
    case 'space':
    case 'hr':
    case 'html':
      return token.type === 'html' ? plain((token as Tokens.HTML).text) : '';
    case 'list':
      return (token as Tokens.List).items.map((item) => `- ${plain(item.text)}`).join('\n');
    case 'table': {
      const t = token as Tokens.Table;
      const row = (cells: Array<{ text: string }>) => cells.map((c) => plain(c.text)).join(' | ');
      return [row(t.header), ...t.rows.map(row)].join('\n');
    }
    case 'code':
      return (token as Tokens.Code).text;
    default:
      return plain('text' in token && typeof token.text === 'string' ? token.text : token.raw);
  }
}

/** Cuts a block longer than MAX_CHARS at sentence (else word) boundaries. */
function split(text: string): string[] {
  if (text.length <= MAX_CHARS) return [text];
  const parts: string[] = [];
  let rest = text;
  while (rest.length > MAX_CHARS) {
    const window = rest.slice(0, MAX_CHARS);
    let cut = Math.max(window.lastIndexOf('. '), window.lastIndexOf('\n'));
    if (cut < TARGET_CHARS / 2) cut = window.lastIndexOf(' ');
    if (cut < TARGET_CHARS / 2) cut = MAX_CHARS - 1;
    parts.push(rest.slice(0, cut + 1).trim());
    rest = rest.slice(cut + 1);
  }
  if (rest.trim()) parts.push(rest.trim());
  return parts;
}

export function chunkDocument(titlePath: string[], content: string): Chunk[] {
  const source = content.trimStart().startsWith('<') ? htmlToBlocks(content) : content;
  const tokens = new Lexer({ gfm: true }).lex(source);
  const chunks: Chunk[] = [];
  const headings: string[] = [];
  let blocks: string[] = [];
  let size = 0;
  const flush = () => {
    if (blocks.length) chunks.push({ heading: [...titlePath, ...headings.filter(Boolean)].join(' › '), content: blocks.join('\n\n') });
    blocks = [];
    size = 0;
  };
  for (const token of tokens) {
    if (token.type === 'heading') {
      flush();
      const h = token as Tokens.Heading;
      headings.length = Math.max(0, h.depth - 1);
      headings[h.depth - 1] = plain(h.text);
      continue;
    }
    for (const part of split(blockText(token).trim())) {
      if (!part) continue;
      if (size > 0 && size + part.length > TARGET_CHARS) flush();
      blocks.push(part);
      size += part.length;
    }
  }
  flush();
  return chunks;
}
