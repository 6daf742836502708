import { sql } from 'drizzle-orm';
import { queryRows } from '../../db/client.js';
import type { Ctx } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { authorizeCsvImport } from './imports.policy.js';
import { parseTasksCsv, type CsvError, type CsvMapping, type CsvRow } from './csv.map.js';
import type { NewTask } from './task-writer.js';

export interface CsvPlan {
  projectName: string;
  tasks: NewTask[];
}

interface Lookup {
  /** Lower-cased name → ids with that name (several: ambiguous). */
  byName: Map<string, number[]>;
  ids: Set<number>;
}

function lookup(rows: Array<{ id: number; keys: string[] }>): Lookup {
  const byName = new Map<string, number[]>();
  for (const row of rows) {
    for (const key of new Set(row.keys.map((k) => k.trim().toLowerCase()))) byName.set(key, [...(byName.get(key) ?? []), Number(row.id)]);
  }
  return { byName, ids: new Set(rows.map((r) => Number(r.id))) };
}

/** A name (or `#id`, as the export writes what it cannot name) → one id, or why not. */
function resolve(value: string, table: Lookup, what: string): number | string {
  const byId = /^#(\d+)$/.exec(value);
  if (byId) return table.ids.has(Number(byId[1])) ? Number(byId[1]) : `${what} ${value} is not available here`;
  const found = table.byName.get(value.toLowerCase()) ?? [];
  if (found.length === 1) return found[0]!;
  return found.length === 0 ? `no ${what} "${value}" here` : `several ${what}s are called "${value}": use their email`;
}

/**
 * Parses the CSV and resolves its names: columns of the project, labels of the organization
 * (an import by a member creates no labels), and people who may be assigned in the project
 * (by name or email).
 */
async function resolveCsv(ctx: Ctx, projectId: number, text: string): Promise<{ mapping: CsvMapping[]; count: number; errors: CsvError[]; tasks: NewTask[] }> {
  const parsed = await parseTasksCsv(text);
  const { errors } = parsed;
  const org = ctx.actor.organizationId;
  // One after another: inside a transaction the queries share one connection.
  const columns = await queryRows<{ id: number; name: string }>(ctx.db, sql`select id, name from stages where project_id = ${projectId} and organization_id = ${org} order by "order", id`);
  const labels = await queryRows<{ id: number; name: string }>(ctx.db, sql`select id, name from labels where organization_id = ${org}`);
  // Whoever may be assigned in the project (tasks.policy requireAssignable): the same rule, for a whole file at once.
  const people = await queryRows<{ id: number; name: string; email: string }>(
    ctx.db,
    sql`select u.id, u.name, u.email from users u
        join organization_members om on om.user_id = u.id and om.organization_id = ${org} and om.active and om.deleted_at is null
        where om.role in ('owner', 'admin') or exists (
          select 1 from space_members sm join projects p on p.id = ${projectId}
          where sm.user_id = u.id and (sm.space_id = p.space_id or sm.space_id in (select ps.space_id from project_spaces ps where ps.project_id = p.id)))`,
  );
  const columnTable = lookup(columns.map((c) => ({ id: c.id, keys: [c.name] })));
  const labelTable = lookup(labels.map((l) => ({ id: l.id, keys: [l.name] })));
  const peopleTable = lookup(people.map((p) => ({ id: p.id, keys: [p.name, p.email] })));
  if (columns.length === 0 && parsed.rows.length > 0) errors.push({ row: 1, column: null, message: 'the project has no column to put tasks in' });
  const many = (row: CsvRow, values: string[], table: Lookup, what: string, column: string) =>
    values.flatMap((v) => {
      const id = resolve(v, table, what);
      if (typeof id === 'number') return [id];
      errors.push({ row: row.row, column, message: id });
      return [];
    });
  const tasks = parsed.rows.map((row): NewTask => {
    let stageId = columns[0] ? Number(columns[0].id) : 0;
    if (row.column) {
      const id = resolve(row.column, columnTable, 'column');
      if (typeof id === 'number') stageId = id;
      else errors.push({ row: row.row, column: 'Column', message: id });
    }
    return {
      stageId,
      name: row.name,
      description: null,
      color: row.color,
      status: row.status,
      importance: row.importance,
      dateBegin: row.dateBegin,
      dateEnd: row.dateEnd,
      dateBeginWithoutTime: row.dateBeginWithoutTime,
      dateEndWithoutTime: row.dateEndWithoutTime,
      planTime: row.planTime,
      blockReason: row.status === 3 ? row.blockReason : null,
      archived: row.archived,
      labelIds: many(row, row.labels, labelTable, 'label', 'Labels'),
      assigneeIds: many(row, row.assignees, peopleTable, 'member', 'Assignees'),
      memberIds: many(row, row.members, peopleTable, 'member', 'Members'),
      subtasks: [],
      messages: [],
    };
  });
  errors.sort((a, b) => a.row - b.row);
  return { mapping: parsed.mapping, count: parsed.count, errors, tasks };
}

/** The dry run: how the headers map and what is wrong, row by row; nothing is written. */
export async function previewCsvImport(ctx: Ctx, projectId: number, text: string) {
  await authorizeCsvImport(ctx.db, ctx.actor, projectId);
  const { mapping, count, errors } = await resolveCsv(ctx, projectId, text);
  return { mapping, rows: count, errors };
}

/** The tasks to create, or 400 listing every bad row (nothing is written then). */
export async function planCsvImport(ctx: Ctx, projectId: number, projectName: string, text: string): Promise<CsvPlan> {
  const { errors, tasks } = await resolveCsv(ctx, projectId, text);
  if (errors.length > 0) {
    const rows = [...new Set(errors.map((e) => e.row))];
    throw new AppError(
      'VALIDATION_FAILED',
      `the CSV has errors in row${rows.length > 1 ? 's' : ''} ${rows.slice(0, 20).join(', ')}${rows.length > 20 ? ', …' : ''}: nothing was imported (POST …/imports/csv/preview lists them)`,
      errors.slice(0, 500).map((e) => ({ path: `/rows/${e.row}${e.column ? `/${e.column}` : ''}`, message: e.message })),
    );
  }
  if (tasks.length === 0) throw new AppError('VALIDATION_FAILED', 'the CSV has no task rows', [{ path: '/rows', message: 'must hold at least one row' }]);
  return { projectName, tasks };
}
