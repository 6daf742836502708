import type { TrelloBoard } from './imports.schemas.js';
import { add, emptyReport, skip, type ImportReport } from './report.js';

// Pure: a Trello board export (already shaped by its schema) → what to create, and a report of
// what was and was not mapped. No database, no ids of ours: the worker resolves people and labels.

const NAME_MAX = 500;

/** Trello's colour names (https://developer.atlassian.com/cloud/trello/guides/rest-api/object-definitions/) in its own palette. */
const TRELLO_COLORS: Record<string, string> = {
  green: '#61bd4f',
  yellow: '#f2d600',
  orange: '#ff9f1a',
  red: '#eb5a46',
  purple: '#c377e0',
  blue: '#0079bf',
  sky: '#00c2e0',
  lime: '#51e898',
  pink: '#ff78cb',
  black: '#344563',
};
const NO_COLOR = '#b3bac5';

export interface PlanComment {
  /** The Trello member id of the author; the worker matches it by email. */
  memberId: string | null;
  authorName: string;
  text: string;
  at: string;
}

export interface PlanTask {
  column: number;
  name: string;
  description: string | null;
  dateBegin: string | null;
  dateEnd: string | null;
  done: boolean;
  archived: boolean;
  /** Indexes into plan.labels. */
  labels: number[];
  /** Trello member ids; the worker keeps those it matches to members by email. */
  members: string[];
  subtasks: Array<{ name: string; checked: boolean }>;
  comments: PlanComment[];
}

export interface TrelloPlan {
  projectName: string;
  columns: string[];
  labels: Array<{ name: string; color: string }>;
  people: Array<{ id: string; name: string; email: string | null }>;
  tasks: PlanTask[];
  /** What the mapping itself already knows it left out or changed. */
  report: ImportReport;
}

const byPos = <T extends { pos?: number | undefined }>(items: T[]): T[] =>
  items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => (a.item.pos ?? 0) - (b.item.pos ?? 0) || a.index - b.index)
    .map((x) => x.item);

const validDate = (value: string | null | undefined): string | null => {
  if (!value) return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
};

function clipName(name: string, report: ImportReport, what: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0) {
    skip(report, `${what} without a name was named "(untitled)"`);
    return '(untitled)';
  }
  if (trimmed.length > NAME_MAX) {
    skip(report, `${what} names longer than ${NAME_MAX} characters were shortened`);
    return trimmed.slice(0, NAME_MAX);
  }
  return trimmed;
}

function importTime(report: ImportReport): string {
  skip(report, 'comments without a readable date are dated at the import');
  return new Date().toISOString();
}

export function labelColor(trelloColor: string | null | undefined): string {
  if (!trelloColor) return NO_COLOR;
  // Newer boards have shades (green_dark, sky_light): the base colour stands for them.
  return TRELLO_COLORS[trelloColor.replace(/_(dark|light)$/, '')] ?? NO_COLOR;
}

export function mapTrelloBoard(board: TrelloBoard): TrelloPlan {
  const report = emptyReport();
  const open = byPos(board.lists.filter((l) => !l.closed));
  const closed = byPos(board.lists.filter((l) => l.closed));
  // Columns cannot be archived here: an archived list's cards become archived tasks in the first
  // column (restore brings them back there); only a board of archived lists keeps them as columns.
  const columnLists = open.length > 0 ? open : closed;
  const columnOf = new Map<string, number>(columnLists.map((l, i) => [l.id, i]));
  if (open.length > 0) {
    for (const list of closed) {
      columnOf.set(list.id, 0);
      skip(report, `archived list "${list.name}" was not made a column; its cards are archived tasks in "${open[0]!.name}"`);
    }
  }
  const columns = columnLists.map((l) => clipName(l.name, report, 'list'));
  const closedIds = new Set(closed.map((l) => l.id));

  const labels: TrelloPlan['labels'] = [];
  const labelIndex = new Map<string, number>();
  const labelByName = new Map<string, number>();
  for (const label of board.labels ?? []) {
    const name = label.name?.trim() || (label.color ? label.color.replace(/_(dark|light)$/, '') : '');
    if (!name) {
      skip(report, 'labels without a name or colour were left out');
      continue;
    }
    const key = name.toLowerCase();
    if (!labelByName.has(key)) {
      labelByName.set(key, labels.length);
      labels.push({ name: name.slice(0, NAME_MAX), color: labelColor(label.color) });
    }
    labelIndex.set(label.id, labelByName.get(key)!);
  }

  const checklists = new Map<string, NonNullable<TrelloBoard['checklists']>>();
  for (const checklist of byPos(board.checklists ?? [])) {
    const list = checklists.get(checklist.idCard) ?? [];
    list.push(checklist);
    checklists.set(checklist.idCard, list);
  }
  const comments = new Map<string, PlanComment[]>();
  for (const action of board.actions ?? []) {
    if (action.type !== 'commentCard') continue;
    const cardId = action.data?.card?.id;
    const text = action.data?.text;
    if (!cardId || typeof text !== 'string' || !text.trim()) {
      skip(report, 'comments without a card or a text were left out');
      continue;
    }
    const list = comments.get(cardId) ?? [];
    list.push({
      memberId: action.idMemberCreator ?? null,
      authorName: action.memberCreator?.fullName || action.memberCreator?.username || 'a Trello user',
      text,
      at: validDate(action.date) ?? importTime(report),
    });
    comments.set(cardId, list);
  }
  for (const action of board.actions ?? []) {
    if (action.type !== 'commentCard') skip(report, `Trello activity (${action.type}) is not imported: the history here starts with the import`);
  }

  const tasks: PlanTask[] = [];
  const cards = byPos(board.cards).map((card) => ({ card, column: columnOf.get(card.idList) }));
  for (const { card, column } of cards) {
    if (column === undefined) {
      skip(report, 'cards whose list is not in the export were left out');
      continue;
    }
    const listClosed = open.length > 0 && closedIds.has(card.idList);
    const cardChecklists = checklists.get(card.id) ?? [];
    const subtasks = cardChecklists.flatMap((checklist) =>
      byPos(checklist.checkItems ?? []).map((item) => ({
        // Several checklists become one list: each item keeps its checklist's name.
        name: clipName(cardChecklists.length > 1 ? `${checklist.name}: ${item.name}` : item.name, report, 'checklist item'),
        checked: item.state === 'complete',
      })),
    );
    if (cardChecklists.length > 1) skip(report, 'cards with several checklists got one subtask list (item names prefixed with their checklist)');
    const attachments = (card.attachments ?? []).filter((a) => typeof a.url === 'string' && a.url.length > 0);
    let description = card.desc?.trim() ? card.desc : null;
    if (attachments.length > 0) {
      // Tasks have no link field: the links go at the end of the description.
      const lines = attachments.map((a) => `- [${(a.name || a.url!).replace(/[[\]]/g, '')}](${a.url})`);
      description = `${description ? `${description}\n\n` : ''}Attachments (from Trello):\n${lines.join('\n')}`;
      add(report, 'attachmentLinks', attachments.length);
      skip(report, 'attachments became links in the description (tasks have no link field; files were not downloaded)', attachments.length);
    }
    const dateEnd = validDate(card.due);
    let dateBegin = validDate(card.start);
    if (dateBegin && dateEnd && dateBegin > dateEnd) {
      skip(report, 'start dates after their due date were left out');
      dateBegin = null;
    }
    tasks.push({
      column,
      name: clipName(card.name, report, 'card'),
      description,
      dateBegin,
      dateEnd,
      done: card.dueComplete === true,
      archived: card.closed === true || listClosed,
      labels: [...new Set((card.idLabels ?? []).flatMap((id) => (labelIndex.has(id) ? [labelIndex.get(id)!] : [])))],
      members: card.idMembers ?? [],
      subtasks,
      comments: (comments.get(card.id) ?? []).sort((a, b) => a.at.localeCompare(b.at)),
    });
  }
  const imported = new Set(cards.filter((c) => c.column !== undefined).map((c) => c.card.id));
  skip(report, 'checklists of cards left out or missing from the export were left out', [...checklists.keys()].filter((id) => !imported.has(id)).reduce((n, id) => n + checklists.get(id)!.length, 0));
  skip(report, 'comments on cards left out or missing from the export were left out', [...comments.keys()].filter((id) => !imported.has(id)).reduce((n, id) => n + comments.get(id)!.length, 0));
  const people = (board.members ?? []).map((m) => ({ id: m.id, name: m.fullName || m.username || m.id, email: m.email?.trim().toLowerCase() || null }));
  return { projectName: clipName(board.name ?? 'Trello board', report, 'board'), columns, labels, people, tasks, report };
}
