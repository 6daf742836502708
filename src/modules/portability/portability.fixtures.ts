import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { ownDatabase, useTestApp, type TestKit, type TestUser } from '../../test/app.js';
import { factories } from '../../test/factories.js';
import { docsFactories } from '../docs/docs.fixtures.js';
import { multipart, PNG, sendFile } from '../files/files.fixtures.js';

// Test-only: an organization with rows in every exported table, and the calls that export and import one.

async function ok<T = Record<string, unknown>>(res: { statusCode: number; body: string; json(): unknown }, what: string): Promise<T> {
  if (res.statusCode >= 300) throw new Error(`${what} failed: ${res.statusCode} ${res.body}`);
  return res.json() as T;
}

/**
 * The board through the API (so history, column stays and status changes are the service's own),
 * uploads through the API (so blobs exist), and the rest of the resource types by SQL, each with
 * references across tables, to itself (a page under a page, a reply) and inside JSON and text.
 */
export async function richOrganization(t: TestKit) {
  const f = factories(t);
  const docs = docsFactories(t);
  const owner = await t.org({ name: 'Olga Owner' });
  const admin = await t.member(owner, 'admin');
  const member = await t.member(owner, 'member');
  const org = owner.organizationId;
  const space = await f.space(owner, 'Product');
  const project = await f.project(owner, space.id, 'Roadmap');
  const todo = await f.stage(owner, project.id, 'To do', 0);
  const done = await f.stage(owner, project.id, 'Done', 1);
  const label = await ok<{ id: number }>(await t.as(owner).post('/labels', { name: 'Urgent', color: '#ff0000' }), 'label');
  const tasks = [];
  for (let i = 0; i < 4; i++) tasks.push(await f.task(owner, todo.id, { name: `Task ${i}`, description: `About ${i}` }));
  await ok(await t.as(owner).patch(`/tasks/${tasks[1]!.id}/status`, { status: 1 }), 'status');
  await ok(await t.as(owner).post(`/tasks/${tasks[2]!.id}/messages`, { text: 'First message' }), 'message');
  const group = await docs.group(owner, space.id, 'Guides');
  const page = await docs.page(owner, space.id, group.id, { name: 'Start', content: '<p>hello</p>' });
  const child = await docs.page(owner, space.id, group.id, { name: 'Child', parentPageId: page.id, content: '<p>child</p>' });
  await ok(await sendFile(t, owner, 'PATCH', '/user/organization/avatar', { data: PNG }), 'avatar');
  const upload = multipart([
    { name: 'files[]', data: Buffer.from('plain text file\n'), filename: 'notes.txt', contentType: 'text/plain' },
    { name: 'files[]', data: Buffer.alloc(70_000, 7), filename: 'data.bin' },
  ]);
  const uploaded = await ok<{ id: number; link: string }[]>(await t.as(owner).request('POST', `/projects/${project.id}/documentation/files`, upload.payload, upload.headers), 'upload');
  const [fileA, fileB] = uploaded;
  const keyA = fileA!.link.split('/').pop()!;
  const [t0, t1, t2, t3] = tasks.map((x) => x.id);
  const [a, m, o] = [admin.id, member.id, owner.id];

  const run = (q: ReturnType<typeof sql>) => t.sql(q);
  // A file named in text: the import must give the text the file's new key.
  await run(sql`update pages set content = ${`<p>see <a href="/files/${keyA}">notes</a></p>`} where id = ${child.id}`);
  await run(sql`insert into space_groups (organization_id, user_id, name) values (${org}, ${o}, 'Mine')`);
  await run(sql`insert into space_user_settings (organization_id, space_id, user_id, favorite, space_group_id)
                select ${org}, ${space.id}, ${o}, true, id from space_groups where organization_id = ${org}
                on conflict (space_id, user_id) do update set favorite = true, space_group_id = excluded.space_group_id`);
  await run(sql`insert into space_members (organization_id, space_id, user_id, role, invited_by_id) values (${org}, ${space.id}, ${m}, 'editor', ${o})`);
  await run(sql`insert into project_groups (organization_id, space_id, name) values (${org}, ${space.id}, 'Group')`);
  const other = await f.space(owner, 'Linked');
  await run(sql`insert into project_spaces (organization_id, project_id, space_id, project_group_id, "order")
                select ${org}, ${project.id}, ${other.id}, id, 0 from project_groups where space_id = ${space.id}`);
  await run(sql`insert into project_user_settings (organization_id, project_id, user_id, favorite, timeline_scale, timeline_grouping) values (${org}, ${project.id}, ${o}, true, 'week', 'stage')`);
  await run(sql`insert into project_tabs (organization_id, project_id, type, name, page_id) values (${org}, ${project.id}, 'doc', 'Docs', ${page.id})`);
  await run(sql`insert into project_templates (organization_id, name, source_project_id, creator_id, with_tasks, stages, tabs, tasks)
                values (${org}, 'Template', ${project.id}, ${o}, true, '[{"name":"To do","color":"","tasksLimit":0}]'::jsonb,
                ${JSON.stringify([{ type: 'doc', name: 'Docs', url: null, pageId: page.id, sourceProjectId: null }])}::jsonb,
                ${JSON.stringify([{ stage: 0, name: 'T', description: null, color: null, importance: 1, planTime: 0, labelIds: [label.id], subtasks: ['a'] }])}::jsonb)`);
  await run(sql`insert into task_assignees (organization_id, task_id, user_id) values (${org}, ${t0}, ${m}), (${org}, ${t1}, ${a})`);
  await run(sql`insert into task_members (organization_id, task_id, user_id) values (${org}, ${t0}, ${a})`);
  await run(sql`insert into task_labels (organization_id, task_id, label_id) values (${org}, ${t0}, ${label.id})`);
  await run(sql`insert into task_inspectors (organization_id, task_id, user_id, status) values (${org}, ${t2}, ${a}, 0)`);
  await run(sql`insert into task_covers (organization_id, task_id, file_id, width, height, dominant_color) values (${org}, ${t3}, ${fileB!.id}, 1, 1, '#000000')`);
  await run(sql`insert into subtasks (organization_id, task_id, name, is_checked, child_task_id, "order") values (${org}, ${t0}, 'Step', true, ${t3}, 0)`);
  await run(sql`insert into task_messages (organization_id, task_id, author_id, text, reply_to_id, created_at)
                select ${org}, ${t2}, ${m}, 'A reply', id, '2025-03-04T05:06:07.891Z' from task_messages where task_id = ${t2}`);
  const [message] = await t.sql<{ id: number }>(sql`select max(id) as id from task_messages where task_id = ${t2}`);
  await run(sql`insert into message_attachments (organization_id, message_id, file_id, position) values (${org}, ${message!.id}, ${fileA!.id}, 0)`);
  await run(sql`insert into message_drive_attachments (organization_id, message_id, drive_file_id, name, mime_type, size, web_url, attached_by_id, position)
                values (${org}, ${message!.id}, 'drive-1', 'Sheet', 'text/csv', 10, 'https://drive.example/1', ${m}, 0)`);
  await run(sql`insert into message_mentions (organization_id, message_id, user_id) values (${org}, ${message!.id}, ${a})`);
  await run(sql`insert into message_reactions (organization_id, message_id, user_id, emoji) values (${org}, ${message!.id}, ${o}, '👍')`);
  await run(sql`insert into time_records (organization_id, task_id, user_id, date, hours, comment) values (${org}, ${t0}, ${m}, '2025-01-02', 1.5, 'work')`);
  await run(sql`insert into timers (organization_id, user_id, task_id, project_id, started_at, stopped_at, seconds, record_id)
                select ${org}, ${m}, ${t0}, ${project.id}, '2025-01-02T08:00:00Z', '2025-01-02T09:30:00Z', 5400, id from time_records where task_id = ${t0}`);
  await run(sql`insert into table_columns (organization_id, project_id, name, type, options) values (${org}, ${project.id}, 'Notes', 'text', '[]'),
                (${org}, ${project.id}, 'Pick', 'select', '["x","y"]'), (${org}, ${project.id}, 'Who', 'user', '[]'), (${org}, ${project.id}, 'Which', 'task', '[]')`);
  const columns = (await t.sql<{ id: number }>(sql`select id from table_columns where project_id = ${project.id} order by id`)).map((c) => c.id);
  // Cells of user and task columns hold ids too.
  const cells = { [columns[0]!]: 'hello', [columns[1]!]: 'y', [columns[2]!]: m, [columns[3]!]: t2 };
  await run(sql`insert into table_rows (organization_id, project_id, "order", cells) values (${org}, ${project.id}, 0, ${JSON.stringify(cells)}::jsonb)`);
  await run(sql`insert into page_files (organization_id, page_id, file_id) values (${org}, ${child.id}, ${fileA!.id})`);
  await run(sql`insert into page_user_settings (organization_id, page_id, user_id, collapsed) values (${org}, ${page.id}, ${o}, true)`);
  await run(sql`insert into project_documentation (organization_id, project_id, content, version, updated_by_id) values (${org}, ${project.id}, 'Read me', 1, ${o})
                on conflict (project_id) do update set content = 'Read me'`);
  await run(sql`insert into reglament_groups (organization_id, space_id, name) values (${org}, ${space.id}, 'Rules')`);
  await run(sql`insert into reglaments (organization_id, space_id, name, content, draft, mandatory, creator_id) values (${org}, ${space.id}, 'Safety', 'Be safe', false, true, ${o})`);
  const [reglament] = await t.sql<{ id: number; group: number }>(
    sql`select r.id, g.id as "group" from reglaments r join reglament_groups g on g.space_id = r.space_id where r.organization_id = ${org}`,
  );
  const rid = reglament!.id;
  await run(sql`update spaces set intro_reglament_id = ${rid} where id = ${space.id}`);
  await run(sql`insert into reglament_spaces (organization_id, reglament_id, space_id, reglament_group_id) values (${org}, ${rid}, ${space.id}, ${reglament!.group})`);
  await run(sql`insert into reglament_versions (organization_id, reglament_id, number, name, content, user_id) values (${org}, ${rid}, 1, 'Safety', 'Be safe', ${o})`);
  await run(sql`insert into reglament_questions (organization_id, reglament_id, name) values (${org}, ${rid}, 'Ready?')`);
  await run(sql`insert into reglament_answers (organization_id, question_id, name, is_right) select ${org}, id, 'Yes', true from reglament_questions where reglament_id = ${rid}`);
  await run(sql`insert into reglament_question_files (organization_id, question_id, file_id) select ${org}, id, ${fileB!.id} from reglament_questions where reglament_id = ${rid}`);
  await run(sql`insert into reglament_files (organization_id, reglament_id, file_id, kind) values (${org}, ${rid}, ${fileA!.id}, 'file')`);
  await run(sql`insert into reglament_favorites (organization_id, reglament_id, user_id) values (${org}, ${rid}, ${m})`);
  await run(sql`insert into reglament_passes (organization_id, reglament_id, user_id) values (${org}, ${rid}, ${m})`);
  await run(sql`insert into reglament_events (organization_id, reglament_id, user_id, action, details) values (${org}, ${rid}, ${m}, 'passed', '{}')`);
  await run(sql`insert into webhooks (organization_id, project_id, url, events, secret, enabled, creator_id) values (${org}, ${project.id}, 'https://hooks.example/in', '{task.*}', 'whsec_c2VjcmV0', true, ${o})`);
  const [hook] = await t.sql<{ id: number }>(sql`select id from webhooks where organization_id = ${org}`);
  await run(sql`insert into automation_rules (organization_id, project_id, name, trigger_type, trigger, conditions, actions, stage_ids, creator_id)
                values (${org}, ${project.id}, 'Done → label', 'entered-stage', ${JSON.stringify({ type: 'entered-stage', stageId: done.id })}::jsonb, '[]'::jsonb,
                ${JSON.stringify([{ type: 'add-labels', labelIds: [label.id] }, { type: 'add-assignees', userIds: [m, a] }, { type: 'call-webhook', webhookId: hook!.id }])}::jsonb,
                ${`{${done.id}}`}::bigint[], ${o})`);
  await run(sql`update task_history set automation_rule_id = (select id from automation_rules where organization_id = ${org}) where task_id = ${t1} and type = 4`);
  await run(sql`insert into ai_llm_settings (organization_id, provider, base_url, api_key_encrypted, api_key_last4, model, temperature)
                values (${org}, 'ollama', 'http://127.0.0.1:11434', 'secret-cipher-text', 'abcd', 'llama', 0.2)`);
  await run(sql`insert into ai_conversations (organization_id, user_id, title) values (${org}, ${o}, 'Chat')`);
  await run(sql`insert into ai_messages (organization_id, conversation_id, role, content, sources) select ${org}, id, 'user', 'Hi', '[]'::jsonb from ai_conversations where organization_id = ${org}`);
  await run(sql`insert into user_activity_days (organization_id, user_id, day) values (${org}, ${m}, '2025-01-02') on conflict do nothing`);
  await run(sql`update pages set public_token = ${`public-${randomUUID()}`} where id = ${page.id}`);
  return { owner, admin, member, org, space, project, tasks, page, child };
}

/** Runs queued export and import jobs until the job ends; answers it as its GET route gives it. */
export async function finishJob(t: TestKit, user: TestUser, path: string): Promise<Record<string, unknown>> {
  const { runJob } = await import('../../platform/jobs.js');
  const { PORTABILITY_JOB } = await import('./portability.worker.js');
  for (let i = 0; i < 20; i++) {
    await runJob(t.app, PORTABILITY_JOB);
    const job = (await t.as(user).get(path)).json() as Record<string, unknown>;
    if (job.status !== 'queued' && job.status !== 'running') return job;
  }
  throw new Error(`${path} did not finish`);
}

/** Exports the user's organization and answers the archive's bytes. */
export async function exportOrganization(t: TestKit, user: TestUser): Promise<{ archive: Buffer; job: Record<string, unknown> }> {
  const started = await ok<{ id: number }>(await t.as(user).post('/organization/exports'), 'export');
  const job = await finishJob(t, user, `/organization/exports/${started.id}`);
  if (job.status !== 'succeeded') throw new Error(`export failed: ${JSON.stringify(job)}`);
  const res = await t.as(user).get(`/organization/exports/${started.id}/download`);
  if (res.statusCode !== 200) throw new Error(`download failed: ${res.statusCode} ${res.body}`);
  return { archive: res.rawPayload, job };
}

/** Uploads an archive as an organization import. */
export function uploadArchive(t: TestKit, user: TestUser | null, archive: Buffer, filename = 'export.tar.gz') {
  const body = multipart([{ name: 'file', data: archive, filename, contentType: 'application/gzip' }]);
  return t.as(user).request('POST', '/organization/imports', body.payload, body.headers);
}

/** A second, empty instance for the same test file (a database of its own, named after `name`). */
export function useFreshInstance(name: string): TestKit {
  return useTestApp(ownDatabase(`fresh_${name}`));
}
