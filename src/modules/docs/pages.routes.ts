import { Type } from 'typebox';
import type { App } from '../../platform/types.js';
import { read, write } from '../../platform/context.js';
import { pageOf, setPageHeaders } from '../../platform/http.js';
import { upload } from '../../platform/openapi.js';
import { FileSchema, orderToInt } from '../../platform/schemas.js';
import { receiveFiles } from '../files/files.service.js';
import type { DocsEnv } from './docs.queries.js';
import * as S from './docs.schemas.js';
import * as pages from './pages.service.js';
import * as tree from './pages.tree.js';
import { CONTENT_BODY_LIMIT, withUploads } from './uploads.js';
import { contentEtag } from '../../platform/content-etag.js';

const tags = ['Documentation'];
const Page = { 200: S.PageSchema };
const params = S.PageParams;

export default async function pageRoutes(app: App): Promise<void> {
  const env: DocsEnv = { publicUrl: app.config.publicUrl, files: app.files };

  app.post(
    '/pages',
    {
      bodyLimit: CONTENT_BODY_LIMIT,
      schema: { tags, summary: 'Create a page in a documentation group (under parentPageId if given)', body: S.CreatePageBody, response: { 201: S.PageFullSchema } },
    },
    async (request, reply) => {
      const input = { ...request.body, order: orderToInt(request.body.order) };
      const page = await write(app, request, (ctx) => pages.createPage(ctx, env, input));
      return reply.code(201).header('etag', contentEtag(page.version, page)).send(page);
    },
  );

  app.get(
    '/pages/:pageId',
    { schema: { tags, summary: 'Read a page with its content and files; the ETag header names its version (for If-Match) and the whole answer', params, response: { 200: S.PageFullSchema } } },
    async (request, reply) => {
      const page = await read(app, request, (ctx) => pages.getPage(ctx, env, request.params.pageId));
      reply.header('etag', contentEtag(page.version, page));
      return page;
    },
  );

  app.patch(
    '/pages/:pageId/content',
    {
      bodyLimit: CONTENT_BODY_LIMIT,
      schema: {
        tags,
        summary: 'Write the content; with If-Match, a stale version answers 409 STALE_VERSION and nothing is written',
        params,
        headers: S.IfMatchHeaders,
        body: S.ContentBody,
        response: { 200: S.PageFullSchema },
      },
    },
    async (request, reply) => {
      const input = { content: request.body.content, ifMatch: request.headers['if-match'] };
      const page = await write(app, request, (ctx) => pages.writePageContent(ctx, env, request.params.pageId, input));
      reply.header('etag', contentEtag(page.version, page));
      return page;
    },
  );

  app.get(
    '/pages/:pageId/versions',
    {
      schema: {
        tags,
        summary:
          'Change history of the content, newest first: every accepted write with author and time; consecutive writes by one author within 5 minutes are merged into one entry',
        params,
        querystring: S.VersionsQuery,
        response: { 200: Type.Array(S.PageVersionSchema) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query);
      const result = await read(app, request, (ctx) => pages.listPageVersions(ctx, request.params.pageId, page));
      setPageHeaders(request, reply, result.total, page);
      return result.items;
    },
  );

  app.patch(
    '/pages/:pageId/name',
    { schema: { tags, summary: 'Rename a page', params, body: S.NameBody, response: Page } },
    (request) => write(app, request, (ctx) => pages.updatePageProperties(ctx, env, request.params.pageId, { name: request.body.name })),
  );

  app.patch(
    '/pages/:pageId/icon',
    { schema: { tags, summary: 'Set (or clear with null) the icon of a page', params, body: S.IconBody, response: Page } },
    (request) => write(app, request, (ctx) => pages.updatePageProperties(ctx, env, request.params.pageId, { icon: request.body.icon })),
  );

  app.patch(
    '/pages/:pageId/order',
    {
      schema: {
        tags,
        summary: 'Move a page among its siblings; with another documentationGroupId, to that group’s top level (with its subtree)',
        params,
        body: S.MoveBody,
        response: Page,
      },
    },
    (request) =>
      write(app, request, (ctx) =>
        tree.movePage(ctx, env, request.params.pageId, { order: orderToInt(request.body.order)!, documentationGroupId: request.body.documentationGroupId }),
      ),
  );

  app.patch(
    '/pages/:pageId/parent',
    {
      schema: {
        tags,
        summary: 'Nest a page under another page of its space (null: top level of its group); never under its own subtree (400)',
        params,
        body: S.ParentBody,
        response: Page,
      },
    },
    (request) =>
      write(app, request, (ctx) =>
        tree.nestPage(ctx, env, request.params.pageId, { parentPageId: request.body.parentPageId, order: orderToInt(request.body.order) }),
      ),
  );

  app.patch(
    '/pages/:pageId/collapsed',
    { schema: { tags, summary: "Set the caller's own collapsed flag of a page in the tree", params, body: S.CollapsedBody, response: Page } },
    (request) => write(app, request, (ctx) => pages.setPageCollapsed(ctx, env, request.params.pageId, request.body.collapsed)),
  );

  app.post(
    '/pages/:pageId/duplicate',
    {
      // The body is optional (routes.md: withChildren?): a bodiless POST means no options.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: { tags, summary: 'Copy a page right after itself (withChildren: its unarchived subtree too)', params, body: S.DuplicateBody, response: { 201: S.PageFullSchema } },
    },
    async (request, reply) => {
      const withChildren = request.body?.withChildren ?? false;
      return reply.code(201).send(await write(app, request, (ctx) => tree.duplicatePage(ctx, env, request.params.pageId, { withChildren })));
    },
  );

  app.patch(
    '/pages/:pageId/archive',
    { schema: { tags, summary: 'Archive a page with its subtree (public links stop answering)', params, response: Page } },
    (request) => write(app, request, (ctx) => pages.archivePage(ctx, env, request.params.pageId)),
  );

  app.patch(
    '/pages/:pageId/restore',
    { schema: { tags, summary: 'Restore a page with its subtree (to the top level if its parent is still archived)', params, response: Page } },
    (request) => write(app, request, (ctx) => pages.restorePage(ctx, env, request.params.pageId)),
  );

  app.patch(
    '/pages/:pageId/public',
    { schema: { tags, summary: 'Publish (an unguessable publicUrl) or unpublish (the old URL dies) a page', params, body: S.PublicBody, response: Page } },
    (request) => write(app, request, (ctx) => pages.setPagePublic(ctx, env, request.params.pageId, request.body.public)),
  );

  app.delete(
    '/pages/:pageId',
    { schema: { tags, summary: 'Delete a page with its subtree and the files only they used', params, response: { 204: Type.Null() } } },
    async (request, reply) => {
      await write(app, request, (ctx) => pages.deletePage(ctx, env, request.params.pageId));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/pages/:pageId/files',
    { schema: { tags, summary: 'Upload files to a page (multipart field files[])', params, ...upload('files[]', true), response: { 201: Type.Array(FileSchema) } } },
    async (request, reply) => {
      const received = await receiveFiles(request, app.files, { maxBytes: app.config.fileLimitBytes });
      const stored = await withUploads(app.files, received, () => write(app, request, (ctx) => pages.uploadPageFiles(ctx, env, request.params.pageId, received)));
      return reply.code(201).send(stored);
    },
  );
}
