import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { Value } from 'typebox/value';
import { expectProblem, fingerprint, useTestApp } from '../../test/app.js';
import { commonCases } from '../../test/common-cases.js';
import { factories } from '../../test/factories.js';
import { spaceMember } from '../tasks/tasks.fixtures.js';
import { eventPayloadSchemas } from '../events/events.catalogue.js';
import { finishImport, trelloBoard } from './imports.fixtures.js';

const t = useTestApp();
const f = factories(t);

const JOB_KEYS = ['createdAt', 'creatorId', 'error', 'finishedAt', 'id', 'kind', 'processed', 'projectId', 'report', 'spaceId', 'status', 'total'];

async function world() {
  const owner = await t.org();
  const space = await f.space(owner);
  return { owner, spaceId: Number(space.id) };
}

describe('POST /spaces/{spaceId}/imports/trello', () => {
  it('imports a 200-card board: every card in its column in order, with checklist, comments, labels, dates; report and progress', async () => {
    const { owner, spaceId } = await world();
    const ada = await spaceMember(t, owner, spaceId, 'member');
    const existing = (await t.as(owner).post('/labels', { name: 'Existing', color: '#123456' })).json();
    const board = trelloBoard({ knownEmail: ada.email.toUpperCase(), existingLabel: 'existing' });
    const res = await t.as(owner).post(`/spaces/${spaceId}/imports/trello`, board);
    expect(res.statusCode).toBe(202);
    const queued = res.json();
    expect(Object.keys(queued).sort()).toEqual(JOB_KEYS);
    expect(queued).toMatchObject({ kind: 'trello', status: 'queued', spaceId, projectId: null, creatorId: owner.id, total: 200, processed: 0, error: null, finishedAt: null });

    const job = await finishImport(t, owner, queued.id);
    expect(job).toMatchObject({ status: 'succeeded', total: 200, processed: 200, error: null });
    const projectId = job.projectId as number;
    const project = (await t.as(owner).get(`/projects/${projectId}`)).json();
    expect(project.name).toBe('Roadmap 2025');
    expect(project.stages.map((s: { name: string }) => s.name)).toEqual(['List 1', 'List 2', 'List 3', 'List 4', 'List 5']);

    const tasks = await t.sql<{ id: number; name: string; stage: string; order: number | null; archived: boolean; status: number; dateEnd: Date | string | null; description: string | null }>(
      sql`select t.id, t.name, s.name as stage, ts."order", t.archived_at is not null as archived, t.status, t.date_end as "dateEnd", t.description
          from tasks t join task_stages ts on ts.task_id = t.id join stages s on s.id = ts.stage_id where t.project_id = ${projectId}`,
    );
    expect(tasks).toHaveLength(200);
    const byName = new Map(tasks.map((r) => [r.name, r]));
    for (const list of board.lists) {
      const expected = board.cards.filter((c) => c.idList === list.id && !c.closed).sort((a, b) => a.pos - b.pos).map((c) => c.name);
      const actual = tasks.filter((r) => r.stage === list.name && !r.archived).sort((a, b) => Number(a.order) - Number(b.order));
      expect(actual.map((r) => r.name)).toEqual(expected);
      // Stored positions are ranks with gaps (tasks/board/ranks.ts): distinct, in the board's order.
      expect(new Set(actual.map((r) => Number(r.order))).size).toBe(expected.length);
    }
    const checklists = await t.sql<{ task: string; name: string; checked: boolean }>(
      sql`select t.name as task, s.name, s.is_checked as checked from subtasks s join tasks t on t.id = s.task_id where t.project_id = ${projectId} order by s.task_id, s."order"`,
    );
    const messages = await t.sql<{ task: string; text: string; authorId: number; at: Date | string }>(
      sql`select t.name as task, m.text, m.author_id as "authorId", m.created_at as at from task_messages m join tasks t on t.id = m.task_id where t.project_id = ${projectId} order by m.id`,
    );
    for (const card of board.cards) {
      const task = byName.get(card.name)!;
      expect({ card: card.name, stage: task.stage, archived: task.archived, done: task.status === 1, due: task.dateEnd === null ? null : new Date(task.dateEnd).toISOString() }).toEqual({
        card: card.name,
        stage: board.lists.find((l) => l.id === card.idList)!.name,
        archived: card.closed,
        done: card.dueComplete,
        due: card.due,
      });
      const lists = board.checklists.filter((c) => c.idCard === card.id).sort((a, b) => a.pos - b.pos);
      const items = lists.flatMap((c) => [...c.checkItems].sort((a, b) => a.pos - b.pos).map((i) => ({ name: lists.length > 1 ? `${c.name}: ${i.name}` : i.name, checked: i.state === 'complete' })));
      expect(checklists.filter((s) => s.task === card.name).map(({ name, checked }) => ({ name, checked }))).toEqual(items);
      const comments = board.actions.filter((a) => a.type === 'commentCard' && a.data.card.id === card.id).sort((a, b) => a.date.localeCompare(b.date));
      expect(messages.filter((m) => m.task === card.name).map((m) => ({ text: m.text, authorId: Number(m.authorId), at: new Date(m.at).toISOString() }))).toEqual(
        comments.map((c) =>
          c.memberCreator.fullName === 'Ada Lovelace'
            ? { text: c.data.text, authorId: ada.id, at: c.date }
            : { text: `Bob Stranger (on Trello):\n${c.data.text}`, authorId: owner.id, at: c.date },
        ),
      );
      if (card.attachments.length > 0) expect(task.description).toContain(`(${card.attachments[0]!.url})`);
    }
    const assigned = await t.sql<{ n: number }>(sql`select count(*)::int as n from task_assignees a join tasks t on t.id = a.task_id where t.project_id = ${projectId} and a.user_id = ${ada.id}`);
    expect(assigned[0]!.n).toBe(board.cards.filter((c) => c.idMembers.length && c.idMembers[0] === board.members[0]!.id).length);
    const labels = await t.sql<{ name: string; color: string }>(sql`select name, color from labels where organization_id = ${owner.organizationId} order by name`);
    expect(labels).toEqual([
      { name: 'Existing', color: '#123456' },
      { name: 'Label 0', color: '#61bd4f' },
      { name: 'Label 1', color: '#f2d600' },
      { name: 'Label 2', color: '#eb5a46' },
      { name: 'Label 3', color: '#00c2e0' },
      { name: 'No colour', color: '#b3bac5' },
      { name: 'purple', color: '#c377e0' },
    ]);
    const reused = await t.sql<{ n: number }>(sql`select count(*)::int as n from task_labels where label_id = ${existing.id}`);
    expect(reused[0]!.n).toBe(board.cards.filter((c) => c.idLabels.includes(board.labels[6]!.id)).length);
    const history = await t.sql<{ n: number; types: number[] }>(
      sql`select count(*)::int as n, array_agg(distinct h.type) as types from task_history h join tasks t on t.id = h.task_id where t.project_id = ${projectId} and h.user_id = ${owner.id}`,
    );
    expect(history[0]).toEqual({ n: 200, types: [0] });
    expect((await t.sql<{ state: string }>(sql`select distinct h.state from task_history h join tasks t on t.id = h.task_id where t.project_id = ${projectId}`))).toEqual([{ state: 'imported from Trello board "Roadmap 2025"' }]);

    const report = job.report as { counts: Record<string, number>; skipped: Array<{ reason: string; count: number }> };
    expect(report.counts).toEqual({
      columns: 5,
      tasks: 200,
      archivedTasks: 20,
      doneTasks: 4,
      subtasks: checklists.length,
      comments: 100,
      commentsCredited: 50,
      assignees: assigned[0]!.n,
      taskLabels: board.cards.reduce((n, c) => n + new Set(c.idLabels).size, 0),
      labelsCreated: 6,
      labelsReused: 1,
      membersMatched: 1,
      attachmentLinks: board.cards.filter((c) => c.attachments.length > 0).length,
    });
    const skipped = Object.fromEntries(report.skipped.map((s) => [s.reason.split(' ').slice(0, 3).join(' '), s.count]));
    expect(skipped).toMatchObject({
      'Trello activity (createCard)': 200,
      'card members not': board.cards.filter((c) => c.idMembers[0] === board.members[1]!.id).length,
      'cards with several': board.cards.filter((c) => c.idChecklists.length > 1).length,
    });

    const events = await t.sql<{ type: 'import.progress'; processed: number; userId: number; payload: unknown }>(
      sql`select type, (payload->>'processed')::int as processed, user_id as "userId", payload from events
          where organization_id = ${owner.organizationId} and type like 'import.%' order by id`,
    );
    expect(events.map((e) => `${e.type}:${e.processed}`)).toEqual([
      'import.progress:0', 'import.progress:0', 'import.progress:50', 'import.progress:100', 'import.progress:150', 'import.progress:200', 'import.finished:200',
    ]);
    expect(new Set(events.map((e) => Number(e.userId)))).toEqual(new Set([owner.id]));
    for (const e of events) expect(Value.Check(eventPayloadSchemas()[e.type], e.payload)).toBe(true);
  }, 120_000);

  it('makes an archived list’s cards archived tasks of the first column, and says so', async () => {
    const { owner, spaceId } = await world();
    const board = trelloBoard({ lists: 3, cards: 6 });
    board.lists[2]!.closed = true;
    const job = await finishImport(t, owner, (await t.as(owner).post(`/spaces/${spaceId}/imports/trello`, board)).json().id);
    expect(job.status).toBe('succeeded');
    const rows = await t.sql<{ name: string; stage: string; archived: boolean }>(
      sql`select t.name, s.name as stage, t.archived_at is not null as archived from tasks t join task_stages ts on ts.task_id = t.id join stages s on s.id = ts.stage_id
          where t.project_id = ${job.projectId as number} order by t.name`,
    );
    expect(rows.filter((r) => ['Card 2', 'Card 5'].includes(r.name))).toEqual([
      { name: 'Card 2', stage: 'List 1', archived: true },
      { name: 'Card 5', stage: 'List 1', archived: true },
    ]);
    expect((await t.as(owner).get(`/projects/${job.projectId as number}`)).json().stages).toHaveLength(2);
    expect((job.report as { skipped: Array<{ reason: string }> }).skipped.map((s) => s.reason)).toContain('archived list "List 3" was not made a column; its cards are archived tasks in "List 1"');
  });

  it('takes a board export larger than the default body limit', async () => {
    const { owner, spaceId } = await world();
    const board = trelloBoard({ cards: 100 });
    for (const card of board.cards) card.desc = 'd'.repeat(16_000);
    expect(JSON.stringify(board).length).toBeGreaterThan(t.config.bodyLimitBytes);
    const res = await t.as(owner).post(`/spaces/${spaceId}/imports/trello`, board);
    expect(res.statusCode).toBe(202);
    expect(res.json().total).toBe(100);
  });

  it('refuses a body that is not a Trello board with 400, writing nothing', async () => {
    const { owner, spaceId } = await world();
    const before = await fingerprint(t, [owner.organizationId], [owner.id]);
    for (const body of [{ name: 'x' }, { lists: [], cards: [] }, { lists: [{ id: 'a', name: 'A' }], cards: [{ id: 'c', name: 'no list' }] }, [1, 2]]) {
      const problem = expectProblem(await t.as(owner).post(`/spaces/${spaceId}/imports/trello`, body), 400, 'VALIDATION_FAILED');
      expect(problem.detail).toEqual(expect.any(String));
    }
    expect(await fingerprint(t, [owner.organizationId], [owner.id])).toBe(before);
  });

  it('fails a job whose user lost the right meanwhile, leaving no project behind', async () => {
    const { owner, spaceId } = await world();
    const editor = await spaceMember(t, owner, spaceId, 'editor');
    const queued = (await t.as(editor).post(`/spaces/${spaceId}/imports/trello`, trelloBoard({ cards: 3 }))).json();
    await t.sql(sql`update space_members set role = 'reader' where user_id = ${editor.id} and space_id = ${spaceId}`);
    const job = await finishImport(t, editor, queued.id);
    expect(job).toMatchObject({ status: 'failed', projectId: null, processed: 0 });
    expect(job.error).toMatch(/nothing of it was kept$/);
    expect(await t.sql(sql`select id from projects where space_id = ${spaceId}`)).toEqual([]);
  });

  commonCases(t, 'POST /spaces/{spaceId}/imports/trello', {
    method: 'POST',
    async setup() {
      const { owner, spaceId } = await world();
      return { url: `/spaces/${spaceId}/imports/trello`, owner, body: trelloBoard({ cards: 2 }), badBody: { lists: 'no' }, forbidden: await spaceMember(t, owner, spaceId, 'member') };
    },
  });
});

describe('GET /imports/{importId}', () => {
  it('shows the job to its creator and to space admins only', async () => {
    const { owner, spaceId } = await world();
    const editor = await spaceMember(t, owner, spaceId, 'editor');
    const admin = await spaceMember(t, owner, spaceId, 'admin');
    const other = await spaceMember(t, owner, spaceId, 'editor');
    const outsider = await t.member(owner, 'member');
    const job = (await t.as(editor).post(`/spaces/${spaceId}/imports/trello`, trelloBoard({ cards: 1 }))).json();
    expect((await t.as(editor).get(`/imports/${job.id}`)).statusCode).toBe(200);
    expect((await t.as(admin).get(`/imports/${job.id}`)).json()).toMatchObject({ id: job.id, status: 'queued' });
    expect((await t.as(owner).get(`/imports/${job.id}`)).statusCode).toBe(200);
    expectProblem(await t.as(other).get(`/imports/${job.id}`), 403, 'FORBIDDEN');
    expectProblem(await t.as(outsider).get(`/imports/${job.id}`), 404, 'NOT_FOUND');
    expectProblem(await t.as(owner).get('/imports/0'), 400, 'VALIDATION_FAILED');
  });

  commonCases(t, 'GET /imports/{importId}', {
    method: 'GET',
    async setup() {
      const { owner, spaceId } = await world();
      const job = (await t.as(owner).post(`/spaces/${spaceId}/imports/trello`, trelloBoard({ cards: 1 }))).json();
      return { url: `/imports/${job.id}`, owner, forbidden: await spaceMember(t, owner, spaceId, 'editor') };
    },
  });
});
