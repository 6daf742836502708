import type { Ctx } from '../../platform/context.js';
import { AppError, notFound } from '../../platform/errors.js';
import { getProject, listProjects } from '../projects/projects.service.js';
import { listMembers } from '../spaces/members/members.service.js';
import { listLabels } from '../labels/labels.service.js';
import type { ProjectFullDto } from '../projects/projects.schemas.js';

/**
 * Agents pass what the user said ("Backend", "Doing", "Ada"), or an id. A name is matched exactly
 * (case and spacing aside), else as a prefix, else as a part; more than one match is never guessed:
 * the candidates go back so the agent can ask.
 */
export class Ambiguous extends Error {
  constructor(
    what: string,
    name: string,
    readonly candidates: { id: number; name: string }[],
  ) {
    super(`"${name}" matches several ${what}: ${candidates.map((c) => `${c.name} (id ${c.id})`).join(', ')}; ask which one and pass its id`);
  }
}

export type Ref = number | string;

const norm = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();

export function pick<T extends { id: number; name: string }>(what: string, ref: Ref, items: T[], extraKeys: (item: T) => string[] = () => []): T {
  if (typeof ref === 'number' || /^\d+$/.test(ref)) {
    const found = items.find((i) => i.id === Number(ref));
    if (!found) throw notFound(what);
    return found;
  }
  const wanted = norm(ref);
  const keys = (i: T) => [i.name, ...extraKeys(i)].map(norm);
  for (const match of [(k: string) => k === wanted, (k: string) => k.startsWith(wanted), (k: string) => k.includes(wanted)]) {
    const hits = items.filter((i) => keys(i).some(match));
    if (hits.length === 1) return hits[0]!;
    if (hits.length > 1) throw new Ambiguous(what, ref, hits.slice(0, 20).map((h) => ({ id: h.id, name: h.name })));
  }
  const known = items.slice(0, 30).map((i) => i.name).join(', ');
  throw new AppError('NOT_FOUND', `no ${what} named "${ref}"${known ? `; known: ${known}` : ''}`);
}

/** A project the user can read, by id or name (listProjects is the same listing as GET /projects). */
export async function resolveProject(ctx: Ctx, ref: Ref): Promise<ProjectFullDto> {
  if (typeof ref === 'number' || /^\d+$/.test(ref)) return getProject(ctx, Number(ref));
  const { items } = await listProjects(ctx, { limit: 500, offset: 0 });
  return getProject(ctx, pick('projects', ref, items).id);
}

export function resolveColumn(project: ProjectFullDto, ref: Ref) {
  return pick(`columns of "${project.name}"`, ref, project.stages);
}

/** People are looked up among the members of the project's home space: only they can be assigned. */
export async function resolveUser(ctx: Ctx, spaceId: number, ref: Ref): Promise<{ id: number; name: string }> {
  if (typeof ref === 'string' && ['me', 'myself', 'i'].includes(norm(ref))) return { id: ctx.actor.userId, name: 'me' };
  const { items } = await listMembers(ctx, spaceId, { limit: 1000, offset: 0 });
  const people = items.map((m) => ({ id: m.userId, name: m.name, email: m.email }));
  const found = pick('people', ref, people, (p) => [p.email]);
  return { id: found.id, name: found.name };
}

export async function resolveLabel(ctx: Ctx, ref: Ref): Promise<{ id: number; name: string }> {
  const { items } = await listLabels(ctx, { limit: 500, offset: 0 });
  const found = pick('labels', ref, items);
  return { id: found.id, name: found.name };
}
