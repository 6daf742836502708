import { Type } from 'typebox';
import type { App } from '../../platform/types.js';
import { read, write } from '../../platform/context.js';
import { pageOf, setPageHeaders } from '../../platform/http.js';
import * as S from './tables.schemas.js';
import * as columns from './columns.service.js';
import * as rows from './rows.service.js';

const tags = ['Columns and rows'];
const Deleted = Type.Null({ description: 'deleted' });

/** The project's Table view (routes.md "Columns and rows"); board columns are stages. */
export default async function tableRoutes(app: App): Promise<void> {
  app.get(
    '/projects/:projectId/table',
    {
      schema: {
        tags,
        summary: "A project's table: every column and a page of rows",
        description: '`limit`/`offset` page the rows; X-Total-Count and Link count rows.',
        params: S.ProjectParams,
        querystring: S.TableQuery,
        response: { 200: S.TableSchema },
      },
    },
    async (request, reply) => {
      const { total, ...table } = await read(app, request, (ctx) => columns.getTable(ctx, request.params.projectId, request.query));
      setPageHeaders(request, reply, total, pageOf(request.query, 1000));
      return table;
    },
  );

  app.post(
    '/projects/:projectId/table-columns',
    {
      schema: {
        tags,
        summary: 'Add a typed column to the table',
        description: '`options` are the choices of a select column. `order` is the position (default: the end).',
        params: S.ProjectParams,
        body: S.CreateColumnBody,
        response: { 201: S.TableColumnSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => columns.createTableColumn(ctx, request.params.projectId, request.body))),
  );

  app.patch(
    '/projects/:projectId/table-columns/:columnId',
    {
      schema: {
        tags,
        summary: 'Change a table column',
        description: 'A new type empties the column; select options taken away empty the cells holding them.',
        params: S.ColumnParams,
        body: S.UpdateColumnBody,
        response: { 200: S.TableColumnSchema },
      },
    },
    (request) => write(app, request, (ctx) => columns.updateTableColumn(ctx, request.params.projectId, request.params.columnId, request.body)),
  );

  app.delete(
    '/projects/:projectId/table-columns/:columnId',
    { schema: { tags, summary: 'Delete a table column and its cells', params: S.ColumnParams, response: { 204: Deleted } } },
    async (request, reply) => {
      await write(app, request, (ctx) => columns.deleteTableColumn(ctx, request.params.projectId, request.params.columnId));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/projects/:projectId/table-rows',
    {
      schema: {
        tags,
        summary: 'Add a row to the table',
        description: "Cells are checked against their column's type (400 naming the cell otherwise).",
        params: S.ProjectParams,
        body: S.CreateRowBody,
        response: { 201: S.TableRowSchema },
      },
      // Every field is optional, so a client may send no body at all.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => rows.createTableRow(ctx, request.params.projectId, request.body))),
  );

  app.patch(
    '/projects/:projectId/table-rows/:rowId',
    {
      schema: {
        tags,
        summary: "Change a row's cells or position",
        description: 'Cells given are set (null empties one); cells left out keep their value.',
        params: S.RowParams,
        body: S.UpdateRowBody,
        response: { 200: S.TableRowSchema },
      },
    },
    (request) => write(app, request, (ctx) => rows.updateTableRow(ctx, request.params.projectId, request.params.rowId, request.body)),
  );

  app.delete(
    '/projects/:projectId/table-rows/:rowId',
    { schema: { tags, summary: 'Delete a table row', params: S.RowParams, response: { 204: Deleted } } },
    async (request, reply) => {
      await write(app, request, (ctx) => rows.deleteTableRow(ctx, request.params.projectId, request.params.rowId));
      return reply.code(204).send(null);
    },
  );
}
