import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { idArray, queryRows, type Queryable } from '../../../db/client.js';
import { projectTabs, type TabType } from '../../../db/schema/index.js';
import type { Ctx } from '../../../platform/context.js';
import { AppError, notFound } from '../../../platform/errors.js';
import { compact, placeAt, type OrderedScope } from '../../../platform/ordering.js';
import { orderToInt } from '../../../platform/schemas.js';
import { authorizePage } from '../../docs/docs.policy.js';
import { emitInProject } from '../projects.events.js';
import { authorizeProject } from '../projects.policy.js';
import { presentTab } from './tabs.presenter.js';
import type { CreateTabInput, TabDto, UpdateTabInput } from './tabs.schemas.js';

const tabsOf = (projectId: number): OrderedScope => ({ table: 'project_tabs', key: 'id', where: sql`project_id = ${projectId}` });

/** Serializes tab placement per project: row locks alone miss a tab a concurrent transaction inserts. */
const lockProject = (ctx: Ctx, projectId: number) => ctx.db.execute(sql`select id from projects where id = ${projectId} for no key update`);

// The one target field each type takes; the others must stay unset.
const TARGET: Record<TabType, 'url' | 'pageId' | 'sourceProjectId' | null> = { link: 'url', doc: 'pageId', board: 'sourceProjectId', table: null };
const TARGETS = ['url', 'pageId', 'sourceProjectId'] as const;

/** The project's tabs in order, for Project(full). */
export async function listTabs(db: Queryable, projectId: number): Promise<TabDto[]> {
  const rows = await db.select().from(projectTabs).where(eq(projectTabs.projectId, projectId)).orderBy(asc(projectTabs.order), asc(projectTabs.id));
  return rows.map(presentTab);
}

async function findTab(ctx: Ctx, projectId: number, tabId: number) {
  await authorizeProject(ctx.db, ctx.actor, projectId, 'update');
  const [tab] = await ctx.db
    .select()
    .from(projectTabs)
    .where(and(eq(projectTabs.id, tabId), eq(projectTabs.projectId, projectId), eq(projectTabs.organizationId, ctx.actor.organizationId)));
  if (!tab) throw notFound('tab');
  return tab;
}

/**
 * A tab's target must suit its type and be something the caller can read: an unreadable page or
 * project is answered as unknown (400 REFERENCE_NOT_FOUND), so a tab cannot probe other spaces.
 */
async function checkTarget(ctx: Ctx, projectId: number, type: TabType, input: Partial<Record<(typeof TARGETS)[number], unknown>>, creating: boolean) {
  const wanted = TARGET[type];
  const stray = TARGETS.find((f) => f !== wanted && input[f] !== undefined);
  if (stray) throw new AppError('BAD_REQUEST', `a ${type} tab takes no ${stray}`);
  if (creating && wanted && input[wanted] === undefined) throw new AppError('BAD_REQUEST', `a ${type} tab needs ${wanted}`);
  const unknown = (what: string) => (err: unknown) => {
    throw err instanceof AppError && err.code === 'NOT_FOUND' ? new AppError('REFERENCE_NOT_FOUND', `${what} not found`) : err;
  };
  if (input.pageId !== undefined) await authorizePage(ctx.db, ctx.actor, Number(input.pageId), 'read').catch(unknown('page'));
  if (input.sourceProjectId !== undefined) {
    if (input.sourceProjectId === projectId) throw new AppError('BAD_REQUEST', 'a board tab shows another project’s board');
    await authorizeProject(ctx.db, ctx.actor, Number(input.sourceProjectId), 'read').catch(unknown('project'));
  }
}

export async function createTab(ctx: Ctx, projectId: number, input: CreateTabInput): Promise<TabDto> {
  await authorizeProject(ctx.db, ctx.actor, projectId, 'update');
  await checkTarget(ctx, projectId, input.type, input, true);
  await lockProject(ctx, projectId);
  const [row] = await ctx.db
    .insert(projectTabs)
    .values({
      organizationId: ctx.actor.organizationId,
      projectId,
      type: input.type,
      name: input.name.trim(),
      url: input.url ?? null,
      pageId: input.pageId ?? null,
      sourceProjectId: input.sourceProjectId ?? null,
    })
    .returning({ id: projectTabs.id });
  await placeAt(ctx.db, tabsOf(projectId), row!.id, orderToInt(input.order));
  return loadAndEmit(ctx, projectId, row!.id, 'tab.created');
}

/**
 * Adds tabs at the end, in order (a project made from a template). A doc or board tab whose target
 * the caller cannot read, or that is gone, is left out rather than failing the whole project.
 */
export async function addTabs(ctx: Ctx, projectId: number, tabs: Array<Pick<TabDto, 'type' | 'name' | 'url' | 'pageId' | 'sourceProjectId'>>): Promise<void> {
  for (const tab of tabs) {
    const target = { url: tab.url ?? undefined, pageId: tab.pageId ?? undefined, sourceProjectId: tab.sourceProjectId ?? undefined };
    const usable = await checkTarget(ctx, projectId, tab.type, target, true).then(
      () => true,
      (err: unknown) => {
        if (err instanceof AppError && (err.code === 'REFERENCE_NOT_FOUND' || err.code === 'BAD_REQUEST')) return false;
        throw err;
      },
    );
    if (!usable) continue;
    await createTab(ctx, projectId, { type: tab.type, name: tab.name, ...target });
  }
}

export async function updateTab(ctx: Ctx, projectId: number, tabId: number, input: UpdateTabInput): Promise<TabDto> {
  const tab = await findTab(ctx, projectId, tabId);
  await checkTarget(ctx, projectId, tab.type, input, false);
  await ctx.db
    .update(projectTabs)
    .set({
      ...(input.name !== undefined ? { name: input.name.trim() } : {}),
      ...(input.url !== undefined ? { url: input.url } : {}),
      ...(input.pageId !== undefined ? { pageId: input.pageId } : {}),
      ...(input.sourceProjectId !== undefined ? { sourceProjectId: input.sourceProjectId } : {}),
      updatedAt: sql`now()`,
    })
    .where(eq(projectTabs.id, tabId));
  return loadAndEmit(ctx, projectId, tabId, 'tab.updated');
}

export async function moveTab(ctx: Ctx, projectId: number, tabId: number, order: number | string): Promise<TabDto> {
  await findTab(ctx, projectId, tabId);
  await lockProject(ctx, projectId);
  await placeAt(ctx.db, tabsOf(projectId), tabId, orderToInt(order));
  return loadAndEmit(ctx, projectId, tabId, 'tab.updated');
}

export async function deleteTab(ctx: Ctx, projectId: number, tabId: number): Promise<void> {
  await findTab(ctx, projectId, tabId);
  await lockProject(ctx, projectId);
  await ctx.db.delete(projectTabs).where(eq(projectTabs.id, tabId));
  await compact(ctx.db, tabsOf(projectId));
  emitInProject(ctx, 'tab.deleted', projectId, { id: tabId });
}

async function loadAndEmit(ctx: Ctx, projectId: number, tabId: number, type: 'tab.created' | 'tab.updated'): Promise<TabDto> {
  const [row] = await ctx.db.select().from(projectTabs).where(eq(projectTabs.id, tabId));
  const tab = presentTab(row!);
  emitInProject(ctx, type, projectId, tab);
  return tab;
}

export interface TabRef {
  id: number;
  projectId: number;
}

/**
 * The tabs that point at these pages, or at any page or project of a space, read before those go:
 * the database then sets the tabs' targets to null, and `announceTabs` tells their boards (tab.updated).
 */
export async function tabsPointingAt(db: Queryable, organizationId: number, target: { pageIds: number[] } | { spaceId: number }): Promise<TabRef[]> {
  const pointing =
    'spaceId' in target
      ? sql`page_id in (select id from pages where space_id = ${target.spaceId}) or source_project_id in (select id from projects where space_id = ${target.spaceId})`
      : sql`page_id = any(${idArray(target.pageIds)})`;
  const rows = await queryRows<TabRef>(db, sql`select id, project_id as "projectId" from project_tabs where organization_id = ${organizationId} and (${pointing})`);
  return rows.map((r) => ({ id: Number(r.id), projectId: Number(r.projectId) }));
}

/** tab.updated for each tab that still exists (those of a deleted project went with it). */
export async function announceTabs(ctx: Ctx, tabs: TabRef[]): Promise<void> {
  if (tabs.length === 0) return;
  const rows = await ctx.db.select().from(projectTabs).where(inArray(projectTabs.id, tabs.map((t) => t.id)));
  for (const row of rows) emitInProject(ctx, 'tab.updated', Number(row.projectId), presentTab(row));
}
