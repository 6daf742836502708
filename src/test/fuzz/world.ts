import type { TestKit, TestUser } from '../app.js';
import { valueFor, type IdLookup, type Json, type Schema, type SchemaResolver } from './schema-values.js';

/** Field names that mean the same world resource (the spec's names vary by route). */
const ALIASES: Record<string, string> = {
  parentTaskId: 'task2',
  childTaskId: 'task2',
  taskIds: 'task',
  ids: 'task',
  responsibleUserId: 'user',
  responsibleId: 'user',
  inspectorId: 'user',
  ownerId: 'user',
  userIds: 'user',
  replyToId: 'message',
  parentPageId: 'page',
  reglamentColumnId: 'reglamentGroup',
  documentationGroupId: 'docGroup',
  groupId: 'projectGroup',
  moveTasksTo: 'stage2',
  sourceProjectId: 'project2',
  stageIds: 'stage',
  fileIds: 'file',
  linkId: 'partnerLink',
};

/** The ids of one organization's resources, made through the API, that hostile requests aim at. */
export class World {
  readonly ids = new Map<string, number>();
  constructor(
    readonly owner: TestUser,
    readonly member: TestUser,
  ) {
    this.ids.set('user', member.id);
    this.ids.set('organization', owner.organizationId);
  }

  lookup: IdLookup = (field) => {
    const key = ALIASES[field] ?? field.replace(/Ids?$/, '');
    return this.ids.get(key);
  };
}

/** What the fuzzing world is made of, in dependency order: [world key, method, path]. */
const STEPS: Array<[string, string, string]> = [
  ['space', 'POST', '/spaces'],
  ['spaceMember', 'POST', '/spaces/{spaceId}/members'],
  ['project', 'POST', '/projects'],
  ['project2', 'POST', '/projects'],
  ['stage', 'POST', '/projects/{projectId}/stages'],
  ['stage2', 'POST', '/projects/{projectId}/stages'],
  ['task', 'POST', '/tasks'],
  ['task2', 'POST', '/tasks'],
  ['label', 'POST', '/labels'],
  ['subtask', 'POST', '/tasks/{taskId}/subtasks'],
  ['message', 'POST', '/tasks/{taskId}/messages'],
  ['projectGroup', 'POST', '/spaces/{spaceId}/project-groups'],
  ['docGroup', 'POST', '/spaces/{spaceId}/documentation-groups'],
  ['page', 'POST', '/pages'],
  ['reglamentGroup', 'POST', '/spaces/{spaceId}/reglament-groups'],
  ['reglament', 'POST', '/reglaments'],
  ['question', 'POST', '/reglaments/{reglamentId}/questions'],
  ['record', 'POST', '/time-records'],
  ['tab', 'POST', '/projects/{projectId}/tabs'],
  ['token', 'POST', '/user/api-tokens'],
  ['column', 'POST', '/projects/{projectId}/table-columns'],
  ['row', 'POST', '/projects/{projectId}/table-rows'],
  ['template', 'POST', '/templates'],
  ['partnerLink', 'POST', '/partner-program/links'],
  ['timer', 'POST', '/timers'],
];

function idOf(body: unknown): number | undefined {
  const b = body as { id?: unknown; task?: { id?: unknown } } | null;
  const id = b?.id ?? b?.task?.id;
  return typeof id === 'number' ? id : undefined;
}

/**
 * A fresh organization with one of each resource. Best effort: a step whose generated body the
 * route refuses leaves its id out, and requests aimed at it use a missing id (still hostile input).
 */
export async function buildWorld(kit: TestKit, doc: { paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Schema }> } }>> }, resolver: SchemaResolver): Promise<World> {
  const owner = await kit.org({ name: 'Fuzz Owner' });
  const member = await kit.member(owner, 'member');
  const world = new World(owner, member);
  for (const [key, method, template] of STEPS) {
    const op = doc.paths[template]?.[method.toLowerCase()];
    if (!op) continue;
    const schema = op.requestBody?.content?.['application/json']?.schema;
    const body = (schema ? valueFor(resolver, schema, world.lookup, '', 0, true) : {}) as Record<string, Json>;
    if (key === 'tab') for (const k of Object.keys(body)) if (k !== 'type' && k !== 'name') delete body[k];
    if (key === 'tab') Object.assign(body, { type: 'table', name: 'Fuzz tab' });
    if (key === 'spaceMember') Object.assign(body, { userIds: [member.id], role: 'editor' });
    if (key === 'task2' || key === 'project2') body.name = `${key}`;
    const url = template.replace(/\{(\w+)\}/g, (_, name: string) => String(world.lookup(name) ?? 1));
    const res = await kit.as(owner).request(method as 'POST', url, body);
    const id = res.statusCode < 300 ? idOf(res.json()) : undefined;
    if (id !== undefined) world.ids.set(key, id);
  }
  return world;
}

/** Whether the world still stands as built: the session works and its main resources are readable. */
export async function worldStands(kit: TestKit, world: World): Promise<boolean> {
  const as = kit.as(world.owner);
  if ((await as.get('/user')).statusCode !== 200) return false;
  const checks = (['task', 'task2', 'project', 'space', 'page', 'reglament'] as const)
    .filter((key) => world.ids.has(key))
    .map((key) => as.get(`/${key.replace(/2$/, '')}s/${world.ids.get(key)}`));
  return (await Promise.all(checks)).every((r) => r.statusCode === 200);
}
