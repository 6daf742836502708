/**
 * Chat mentions. The API reads `@[userId]` in a message's text (src/modules/tasks/messages/mentions.ts)
 * and notifies those users; people read and type `@Name`. The composer shows names and turns the
 * ones picked from the list into tokens when it sends (`toWire`); an edit starts from the names
 * (`toDisplay`).
 */

export interface Person {
  userId: number;
  name: string;
  email?: string;
}

/** A mention as it stands in the composer's text, and the user it names. */
export interface Picked {
  label: string;
  userId: number;
}

export type Part = { text: string } | { userId: number };

const TOKEN = /@\[(\d{1,15})\]/g;
/** The longest text after `@` still taken as a name being typed (names have spaces). */
const MAX_QUERY = 40;

/** A message's text as plain runs and mentions, in order (rendered as nodes, never as HTML). */
export function splitMentions(text: string): Part[] {
  const parts: Part[] = [];
  let last = 0;
  for (const m of text.matchAll(TOKEN)) {
    if (m.index > last) parts.push({ text: text.slice(last, m.index) });
    parts.push({ userId: Number(m[1]) });
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push({ text: text.slice(last) });
  return parts;
}

/** What a mention of `person` reads as: the name, with the e-mail when another person has the same name. */
export function labelOf(person: Person, people: readonly Person[]): string {
  const twin = people.some((p) => p.userId !== person.userId && p.name === person.name);
  return `@${person.name}${twin && person.email ? ` (${person.email})` : ''}`;
}

/**
 * The mention being typed at the caret: an `@` at the start or after a space or bracket, then up to
 * 40 characters without a line break or another `@`. Null when the caret is not in one.
 */
export function activeMention(text: string, caret: number): { start: number; query: string } | null {
  const before = text.slice(0, caret);
  const at = before.lastIndexOf('@');
  if (at < 0) return null;
  if (at > 0 && !/[\s([{"'«]/.test(before[at - 1]!)) return null;
  const query = before.slice(at + 1);
  if (query.length > MAX_QUERY || /[\n@]/.test(query) || query.startsWith(' ') || query.startsWith('[')) return null;
  return { start: at, query };
}

/** People whose name (any word of it) or e-mail starts with the query, names starting with it first. */
export function matchPeople<P extends Person>(people: readonly P[], query: string, limit = 8): P[] {
  const q = query.trim().toLowerCase();
  const rank = (p: P) => {
    const name = p.name.toLowerCase();
    if (name.startsWith(q)) return 0;
    if (name.split(/\s+/).some((w) => w.startsWith(q)) || name.includes(` ${q}`)) return 1;
    if (p.email?.toLowerCase().startsWith(q)) return 2;
    return -1;
  };
  return people
    .map((p) => ({ p, r: q ? rank(p) : 0 }))
    .filter((x) => x.r >= 0)
    .sort((a, b) => a.r - b.r || a.p.name.localeCompare(b.p.name))
    .slice(0, limit)
    .map((x) => x.p);
}

/** The text with the typed `@query` (from `start` to `caret`) replaced by `label` and a space; the caret after it. */
export function insertMention(text: string, start: number, caret: number, label: string): { text: string; caret: number } {
  const after = text.slice(caret);
  const inserted = `${label}${after.startsWith(' ') ? '' : ' '}`;
  return { text: text.slice(0, start) + inserted + after, caret: start + inserted.length + (after.startsWith(' ') ? 1 : 0) };
}

/** Inserts `@` at the caret (after a space when needed) so the list opens: the composer's @ button. */
export function startMention(text: string, caret: number): { text: string; caret: number } {
  const before = text.slice(0, caret);
  const lead = before === '' || /\s$/.test(before) ? '@' : ' @';
  return { text: before + lead + text.slice(caret), caret: caret + lead.length };
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The text to send: each picked mention still in the text becomes `@[userId]`. A label is matched
 * only as a whole (not followed by a letter or digit), longest labels first, so "@Ann" never eats
 * the start of "@Anna Smith".
 */
export function toWire(text: string, picked: readonly Picked[]): string {
  const labels = [...new Map(picked.map((p) => [p.label, p.userId])).entries()].sort((a, b) => b[0].length - a[0].length);
  if (labels.length === 0) return text;
  const pattern = new RegExp(`(${labels.map(([l]) => escape(l)).join('|')})(?![\\p{L}\\p{N}])`, 'gu');
  const ids = new Map(labels);
  return text.replace(pattern, (label) => `@[${ids.get(label)}]`);
}

/** A sent text back in the composer's form: each `@[userId]` of a known person as its label, and the mentions that makes. */
export function toDisplay(text: string, people: readonly Person[]): { text: string; picked: Picked[] } {
  const byId = new Map(people.map((p) => [p.userId, p]));
  const picked: Picked[] = [];
  const shown = splitMentions(text)
    .map((part) => {
      if ('text' in part) return part.text;
      const person = byId.get(part.userId);
      if (!person) return `@[${part.userId}]`;
      const label = labelOf(person, people);
      picked.push({ label, userId: person.userId });
      return label;
    })
    .join('');
  return { text: shown, picked };
}
