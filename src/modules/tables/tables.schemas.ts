import { Type, type Static } from 'typebox';
import { DateTime, Id, Name, OrderIn, OrderOut } from '../../platform/schemas.js';
import type { TableColumnType } from '../../db/schema/tables.js';
import { Offset } from '../../platform/http.js';

// routes.md "Columns and rows": the project's Table view, typed columns and free rows.

export const ColumnType = Type.Union(
  [
    Type.Literal('text'),
    Type.Literal('number'),
    Type.Literal('date'),
    Type.Literal('checkbox'),
    Type.Literal('select'),
    Type.Literal('user'),
    Type.Literal('task'),
    Type.Literal('url'),
  ],
  { description: 'text, number, date (YYYY-MM-DD), checkbox (boolean), select (one of options), user (a space member id), task (a task of the project), url (http/https)' },
);

const Options = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
  maxItems: 200,
  uniqueItems: true,
  description: 'the choices of a select column; empty for other types',
});
const Width = Type.Integer({ minimum: 40, maximum: 2000, description: 'display width in pixels (default 200)' });

export const CellValue = Type.Union([Type.String({ maxLength: 10_000 }), Type.Number(), Type.Boolean()], {
  description: "a value of the column's type: string (text, date, select, url), number (number, and user or task ids), boolean (checkbox)",
});
const CellKey = '^[1-9][0-9]{0,15}$';

export const TableColumnSchema = Type.Object(
  {
    id: Type.Integer(),
    projectId: Type.Integer(),
    name: Type.String(),
    type: ColumnType,
    options: Type.Array(Type.String()),
    width: Type.Integer(),
    order: OrderOut,
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'TableColumn' },
);
export type TableColumnDto = Static<typeof TableColumnSchema>;

// The schema spells the stored types out; this fails to compile if the two lists part.
const sameTypes: [TableColumnType, Static<typeof ColumnType>] extends [Static<typeof ColumnType>, TableColumnType] ? true : never = true;
void sameTypes;

export const TableRowSchema = Type.Object(
  {
    id: Type.Integer(),
    projectId: Type.Integer(),
    order: OrderOut,
    cells: Type.Record(Type.String({ pattern: CellKey }), CellValue, { description: 'values by column id; empty cells are absent' }),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'TableRow' },
);
export type TableRowDto = Static<typeof TableRowSchema>;

export const TableSchema = Type.Object({ columns: Type.Array(TableColumnSchema), rows: Type.Array(TableRowSchema) }, { $id: 'Table' });

export const ProjectParams = Type.Object({ projectId: Id('project id') });
export const ColumnParams = Type.Object({ projectId: Id('project id'), columnId: Id('table column id') });
export const RowParams = Type.Object({ projectId: Id('project id'), rowId: Id('table row id') });

export const TableQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 1000, description: 'rows per page (default 1000, max 10000); every column is always given' })),
  offset: Offset('rows to skip'),
});
export type TableQueryInput = Static<typeof TableQuery>;

export const CreateColumnBody = Type.Object({
  name: Name(),
  type: ColumnType,
  options: Type.Optional(Options),
  width: Type.Optional(Width),
  order: Type.Optional(OrderIn),
});
export type CreateColumnInput = Static<typeof CreateColumnBody>;

export const UpdateColumnBody = Type.Object(
  { name: Type.Optional(Name()), type: Type.Optional(ColumnType), options: Type.Optional(Options), width: Type.Optional(Width), order: Type.Optional(OrderIn) },
  { minProperties: 1, description: 'a new type empties the column; select options removed empty the cells holding them' },
);
export type UpdateColumnInput = Static<typeof UpdateColumnBody>;

/** Cells to set; null empties a cell. Cells left out keep their value. */
export const CellsIn = Type.Record(Type.String({ pattern: CellKey }), Type.Union([CellValue, Type.Null()]), {
  maxProperties: 200,
  description: 'values by column id; null empties a cell, cells left out keep their value',
});
export type CellsInput = Static<typeof CellsIn>;

export const CreateRowBody = Type.Object({ cells: Type.Optional(CellsIn), order: Type.Optional(OrderIn) });
export type CreateRowInput = Static<typeof CreateRowBody>;
export const UpdateRowBody = Type.Object({ cells: Type.Optional(CellsIn), order: Type.Optional(OrderIn) }, { minProperties: 1 });
export type UpdateRowInput = Static<typeof UpdateRowBody>;
