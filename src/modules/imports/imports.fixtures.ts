import { runJob } from '../../platform/jobs.js';
import type { TestKit, TestUser } from '../../test/app.js';
import { IMPORT_JOB } from './imports.worker.js';

// Test-only: a Trello board export as Trello writes it (https://developer.atlassian.com/cloud/trello/guides/rest-api/object-definitions/),
// with the noise real exports carry (prefs, limits, ids everywhere, activity other than comments).

let counter = 0;
/** A Trello id: 24 hex digits, unique within the run. */
const trelloId = () => (0x5f0000000000 + ++counter).toString(16).padStart(24, 'a');
const at = (day: number, hour = 9) => new Date(Date.UTC(2025, 0, 1 + day, hour, 30)).toISOString();

export interface BoardOptions {
  lists?: number;
  cards?: number;
  /** Email of a Trello member (matched to an organization member when it is one's). */
  knownEmail?: string;
  /** A label name that already exists in the organization. */
  existingLabel?: string;
}

/**
 * A board of `lists` open lists and `cards` cards spread over them, listed out of order (positions
 * decide); every 10th card archived, every 3rd with a checklist (every 9th with two), every 4th
 * with comments, every 5th with a due date (every 10th of those complete), every 7th with links.
 */
export function trelloBoard(o: BoardOptions = {}) {
  const boardId = trelloId();
  const ada = { id: trelloId(), fullName: 'Ada Lovelace', username: 'ada', email: o.knownEmail ?? null, avatarHash: null, initials: 'AL', memberType: 'normal' };
  const bob = { id: trelloId(), fullName: 'Bob Stranger', username: 'bobs', avatarHash: null, initials: 'BS', memberType: 'normal' };
  const lists = Array.from({ length: o.lists ?? 5 }, (_, i) => ({ id: trelloId(), name: `List ${i + 1}`, closed: false, idBoard: boardId, pos: 16384 * (i + 1), subscribed: false, softLimit: null }));
  const colors = ['green', 'yellow', 'red', 'sky_dark', null];
  const labels = [
    ...colors.map((color, i) => ({ id: trelloId(), idBoard: boardId, name: i === 4 ? 'No colour' : `Label ${i}`, color })),
    { id: trelloId(), idBoard: boardId, name: '', color: 'purple' },
    ...(o.existingLabel ? [{ id: trelloId(), idBoard: boardId, name: o.existingLabel, color: 'blue' }] : []),
  ];
  const cards = [];
  const checklists = [];
  const actions = [];
  const n = o.cards ?? 200;
  for (let i = 0; i < n; i++) {
    const list = lists[i % lists.length]!;
    const id = trelloId();
    const card = {
      id,
      name: `Card ${i}`,
      desc: i % 2 === 0 ? `Description of card ${i}` : '',
      idBoard: boardId,
      idList: list.id,
      // Later cards of a list get lower positions: array order is not board order.
      pos: 65536 * (n - i) + 0.5,
      closed: i % 10 === 9,
      due: i % 5 === 0 ? at(i) : null,
      dueComplete: i % 50 === 0,
      start: null,
      idLabels: [labels[i % labels.length]!.id, ...(i % 6 === 0 ? [labels[(i + 1) % labels.length]!.id] : [])],
      idMembers: i % 8 === 0 ? [ada.id] : i % 8 === 4 ? [bob.id] : [],
      idChecklists: [] as string[],
      attachments: i % 7 === 0 ? [{ id: trelloId(), name: `Spec ${i}`, url: `https://example.com/spec-${i}.pdf`, bytes: 1000, isUpload: false, mimeType: 'application/pdf' }] : [],
      dateLastActivity: at(i),
      badges: { votes: 0, comments: i % 4 === 0 ? 2 : 0 },
      shortUrl: `https://trello.com/c/${id.slice(0, 8)}`,
    };
    for (let c = 0; c < (i % 9 === 0 ? 2 : i % 3 === 0 ? 1 : 0); c++) {
      const checklist = {
        id: trelloId(),
        idBoard: boardId,
        idCard: id,
        name: `Checklist ${c + 1}`,
        pos: 16384 * (2 - c),
        checkItems: [2, 0, 1].map((k) => ({ id: trelloId(), idChecklist: '', name: `Item ${k}`, state: k === 0 ? 'complete' : 'incomplete', pos: 100 * (k + 1), due: null })),
      };
      card.idChecklists.push(checklist.id);
      checklists.push(checklist);
    }
    cards.push(card);
    if (i % 4 === 0) {
      // Trello lists actions newest first.
      actions.push({ id: trelloId(), idMemberCreator: bob.id, type: 'commentCard', date: at(i, 15), data: { text: `Second on ${i}`, card: { id, name: card.name, idShort: i }, board: { id: boardId } }, memberCreator: { id: bob.id, fullName: bob.fullName, username: bob.username } });
      actions.push({ id: trelloId(), idMemberCreator: ada.id, type: 'commentCard', date: at(i, 10), data: { text: `First on ${i}`, card: { id, name: card.name, idShort: i }, board: { id: boardId } }, memberCreator: { id: ada.id, fullName: ada.fullName, username: ada.username } });
    }
    actions.push({ id: trelloId(), idMemberCreator: ada.id, type: 'createCard', date: at(i, 8), data: { card: { id, name: card.name }, list: { id: list.id } }, memberCreator: { id: ada.id, fullName: ada.fullName } });
  }
  return {
    id: boardId,
    name: 'Roadmap 2025',
    desc: '',
    closed: false,
    idOrganization: trelloId(),
    url: 'https://trello.com/b/abcdefgh/roadmap-2025',
    prefs: { permissionLevel: 'private', background: 'blue', cardCovers: true },
    labelNames: { green: 'Label 0', yellow: 'Label 1' },
    limits: { cards: { openPerBoard: { status: 'ok' } } },
    actions,
    cards,
    labels,
    lists,
    members: [ada, bob],
    checklists,
    customFields: [],
    memberships: [],
    pluginData: [],
  };
}

/** Runs the import worker until the job ends; answers the job as GET /imports/{id} gives it. */
export async function finishImport(t: TestKit, user: TestUser, importId: number): Promise<Record<string, unknown>> {
  for (let i = 0; i < 50; i++) {
    await runJob(t.app, IMPORT_JOB);
    const job = (await t.as(user).get(`/imports/${importId}`)).json() as Record<string, unknown>;
    if (job.status === 'succeeded' || job.status === 'failed') return job;
  }
  throw new Error(`import ${importId} did not finish`);
}
