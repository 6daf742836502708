import { sql } from 'drizzle-orm';
import { idArray, queryRows, type Queryable } from '../../db/client.js';
import type { Actor } from '../../platform/auth.js';
import { AppError, type FieldError } from '../../platform/errors.js';
import type { TableColumnType } from '../../db/schema/tables.js';
import { requireAssignable } from '../tasks/tasks.policy.js';
import type { CellsInput } from './tables.schemas.js';

export interface ColumnDef {
  id: number;
  type: TableColumnType;
  options: string[];
}

type Cell = string | number | boolean;

const validDay = (v: string): boolean => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return false;
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
};

const validUrl = (v: string): boolean => {
  if (v.length > 2048) return false;
  try {
    const url = new URL(v);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
};

const isId = (v: Cell): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;

/** The shape check of one value against its column's type; null when it fits, else why not. */
function shapeError(column: ColumnDef, value: Cell): string | null {
  switch (column.type) {
    case 'text':
      return typeof value === 'string' ? null : 'must be a string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number';
    case 'date':
      return typeof value === 'string' && validDay(value) ? null : 'must be a date YYYY-MM-DD';
    case 'checkbox':
      return typeof value === 'boolean' ? null : 'must be a boolean';
    case 'select':
      return typeof value === 'string' && column.options.includes(value) ? null : `must be one of the column's options`;
    case 'user':
      return isId(value) ? null : 'must be a user id';
    case 'task':
      return isId(value) ? null : 'must be a task id';
    case 'url':
      return typeof value === 'string' && validUrl(value) ? null : 'must be an http(s) URL';
  }
}

/**
 * Checks cells against the project's columns and answers the changes to apply: values to set and
 * column ids to empty. 400 VALIDATION_FAILED naming every bad cell (`/cells/<columnId>`): an unknown
 * column, a value of the wrong type, a user who is not a member of the project's spaces, a task
 * that is not on the project's board. References are checked with one query per kind.
 */
export async function validateCells(
  db: Queryable,
  actor: Actor,
  projectId: number,
  columns: Map<number, ColumnDef>,
  cells: CellsInput,
): Promise<{ set: Record<string, Cell>; clear: string[] }> {
  const errors: FieldError[] = [];
  const set: Record<string, Cell> = {};
  const clear: string[] = [];
  const users = new Map<number, string[]>();
  const tasks = new Map<number, string[]>();
  for (const [key, value] of Object.entries(cells)) {
    const column = columns.get(Number(key));
    if (!column) {
      errors.push({ path: `/cells/${key}`, message: 'is not a column of this table' });
      continue;
    }
    if (value === null) {
      clear.push(key);
      continue;
    }
    const problem = shapeError(column, value);
    if (problem) {
      errors.push({ path: `/cells/${key}`, message: problem });
      continue;
    }
    if (column.type === 'user') users.set(value as number, [...(users.get(value as number) ?? []), key]);
    if (column.type === 'task') tasks.set(value as number, [...(tasks.get(value as number) ?? []), key]);
    set[key] = value;
  }

  if (users.size > 0) {
    try {
      await requireAssignable(db, actor, projectId, [...users.keys()], 'cells');
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const keys = [...users.values()].flat().join(', ');
      errors.push({ path: '/cells', message: `user cells (${keys}) must name members of the project's spaces: ${err.message}` });
    }
  }
  if (tasks.size > 0) {
    const found = await queryRows<{ id: number }>(
      db,
      sql`select distinct task_id as id from task_stages
          where project_id = ${projectId} and organization_id = ${actor.organizationId} and task_id = any(${idArray([...tasks.keys()])})`,
    );
    const ok = new Set(found.map((r) => Number(r.id)));
    for (const [id, keys] of tasks) if (!ok.has(id)) for (const key of keys) errors.push({ path: `/cells/${key}`, message: `task ${id} is not a task of this project` });
  }

  if (errors.length > 0) throw new AppError('VALIDATION_FAILED', `${errors[0]!.path} ${errors[0]!.message}`, errors);
  return { set, clear };
}
