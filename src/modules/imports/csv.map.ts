import { EXPORT_FIELDS, type ExportField } from '../tasks/export/export.schemas.js';
import type { NewTask } from './task-writer.js';

// Pure: a CSV document in the export's format → rows of typed values with names still unresolved
// (columns, people, labels are looked up by the service), plus every error found, per row.

/** The export's headers (tasks/export/export.service.ts); a header also matches its field key. */
export const HEADERS: Record<ExportField, string> = {
  id: 'ID', name: 'Name', status: 'Status', column: 'Column', assignees: 'Assignees', members: 'Members', labels: 'Labels',
  importance: 'Importance', dateBegin: 'Start', dateEnd: 'Due', planTime: 'Planned hours', factTime: 'Spent hours',
  checklist: 'Checklist', subtasks: 'Subtasks', blockReason: 'Block reason', color: 'Colour', creator: 'Creator',
  createdAt: 'Created', updatedAt: 'Updated', archived: 'Archived',
};

/** Columns the export writes but an import cannot set: they are derived, or belong to the original. */
const NOT_IMPORTED = new Set<ExportField>(['id', 'factTime', 'checklist', 'subtasks', 'creator', 'createdAt', 'updatedAt']);

export const MAX_ROWS = 5000;
const STATUS = ['in work', 'done', 'rejected', 'needs attention'];
const IMPORTANCE = ['low', 'medium', 'high', 'critical'];
const DAY = /^\d{4}-\d{2}-\d{2}$/;

export interface CsvError {
  row: number;
  column: string | null;
  message: string;
}

/** A row as read: the task's own fields as an import writes them, its references still by name. */
export interface CsvRow
  extends Pick<
    NewTask,
    'name' | 'status' | 'importance' | 'dateBegin' | 'dateEnd' | 'dateBeginWithoutTime' | 'dateEndWithoutTime' | 'planTime' | 'blockReason' | 'color' | 'archived'
  > {
  /** 1-based line of the document (the header is row 1). */
  row: number;
  column: string | null;
  assignees: string[];
  members: string[];
  labels: string[];
}

export interface CsvMapping {
  header: string;
  field: ExportField | null;
  imported: boolean;
}

export interface ParsedCsv {
  mapping: CsvMapping[];
  rows: CsvRow[];
  count: number;
  errors: CsvError[];
}

const fieldOf = (header: string): ExportField | null => {
  const key = header.trim().toLowerCase();
  return EXPORT_FIELDS.find((f) => HEADERS[f].toLowerCase() === key || f.toLowerCase() === key) ?? null;
};

// The export makes a cell a spreadsheet would run as a formula plain text with a leading '; undone here.
const unneutral = (cell: string) => (/^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell);
const names = (cell: string) => cell.split(',').map((s) => s.trim()).filter(Boolean);

function instantOrDay(cell: string): { instant: string | null; day: string | null } | null {
  if (!cell) return { instant: null, day: null };
  if (DAY.test(cell)) return Number.isNaN(Date.parse(cell)) ? null : { instant: null, day: cell };
  if (!/^\d{4}-\d{2}-\d{2}T/.test(cell)) return null;
  const time = Date.parse(cell);
  return Number.isNaN(time) ? null : { instant: new Date(time).toISOString(), day: null };
}

export async function parseTasksCsv(text: string): Promise<ParsedCsv> {
  // Loaded by the first import, not at start (issue 42).
  const { parse } = await import('csv-parse/sync');
  let records: string[][];
  try {
    records = parse(text, { bom: true, relax_column_count: true, skip_empty_lines: true, max_record_size: 1_100_000 }) as string[][];
  } catch (err) {
    const line = (err as { lines?: number }).lines;
    return { mapping: [], rows: [], count: 0, errors: [{ row: line ?? 1, column: null, message: `not a readable CSV: ${(err as Error).message}` }] };
  }
  const [header, ...data] = records;
  if (!header) return { mapping: [], rows: [], count: 0, errors: [{ row: 1, column: null, message: 'the CSV is empty: a header row is required' }] };
  const mapping = header.map((h) => {
    const field = fieldOf(h);
    return { header: h, field, imported: field !== null && !NOT_IMPORTED.has(field) };
  });
  const errors: CsvError[] = [];
  const seen = new Set<ExportField>();
  for (const m of mapping) {
    if (m.field && seen.has(m.field)) errors.push({ row: 1, column: m.header, message: 'this column appears twice' });
    if (m.field) seen.add(m.field);
  }
  if (!seen.has('name')) errors.push({ row: 1, column: null, message: `a "${HEADERS.name}" column is required` });
  if (data.length > MAX_ROWS) errors.push({ row: MAX_ROWS + 2, column: null, message: `at most ${MAX_ROWS} rows can be imported at once` });
  if (errors.length > 0) return { mapping, rows: [], count: data.length, errors };

  const rows = data.map((record, i) => {
    const row = i + 2;
    const fail = (field: ExportField | null, message: string) => errors.push({ row, column: field ? HEADERS[field] : null, message });
    if (record.length !== header.length) fail(null, `has ${record.length} cells, the header ${header.length}`);
    const cell = (field: ExportField) => {
      const at = mapping.findIndex((m) => m.field === field);
      return at < 0 ? '' : unneutral((record[at] ?? '').trim());
    };
    const name = cell('name');
    if (!name) fail('name', 'must not be empty');
    else if (name.length > 500) fail('name', 'must be at most 500 characters');
    const statusCell = cell('status').toLowerCase();
    const status = statusCell === '' ? 0 : /^[0-3]$/.test(statusCell) ? Number(statusCell) : STATUS.indexOf(statusCell);
    if (status < 0) fail('status', `must be one of: ${STATUS.join(', ')}`);
    const importanceCell = cell('importance').toLowerCase();
    const importance = importanceCell === '' ? -1 : /^-?[0-3]$/.test(importanceCell) ? Number(importanceCell) : IMPORTANCE.indexOf(importanceCell);
    if (importance < -1 || (importanceCell !== '' && importance === -1 && importanceCell !== '-1')) fail('importance', `must be one of: ${IMPORTANCE.join(', ')}`);
    const begin = instantOrDay(cell('dateBegin'));
    const end = instantOrDay(cell('dateEnd'));
    if (!begin) fail('dateBegin', 'must be a date (YYYY-MM-DD) or an ISO 8601 date-time');
    if (!end) fail('dateEnd', 'must be a date (YYYY-MM-DD) or an ISO 8601 date-time');
    const b = begin?.instant ?? begin?.day;
    const e = end?.instant ?? end?.day;
    if (b && e && b.slice(0, 10) > e.slice(0, 10)) fail('dateBegin', 'is after the due date');
    if (begin?.instant && end?.day) fail('dateEnd', 'mixes a date with the start’s date-time: give both with a time or both without');
    if (begin?.day && end?.instant) fail('dateEnd', 'mixes a date-time with the start’s date: give both with a time or both without');
    const planCell = cell('planTime');
    const planTime = planCell === '' ? 0 : Number(planCell);
    if (!Number.isFinite(planTime) || planTime < 0 || planTime > 100_000) fail('planTime', 'must be a number of hours from 0 to 100000');
    const blockReason = cell('blockReason') || null;
    if (blockReason && blockReason.length > 2000) fail('blockReason', 'must be at most 2000 characters');
    const color = cell('color') || null;
    if (color && !/^#[0-9A-Fa-f]{6}$/.test(color)) fail('color', 'must be a colour #RRGGBB');
    const archivedCell = cell('archived').toLowerCase();
    if (!['', 'yes', 'no', 'true', 'false'].includes(archivedCell)) fail('archived', 'must be yes or no');
    return {
      row,
      name,
      status,
      column: cell('column') || null,
      assignees: names(cell('assignees')),
      members: names(cell('members')),
      labels: names(cell('labels')),
      importance,
      dateBegin: begin?.instant ?? null,
      dateEnd: end?.instant ?? null,
      dateBeginWithoutTime: begin?.day ?? null,
      dateEndWithoutTime: end?.day ?? null,
      planTime,
      blockReason,
      color: color?.toLowerCase() ?? null,
      archived: archivedCell === 'yes' || archivedCell === 'true',
    };
  });
  return { mapping, rows, count: data.length, errors };
}
