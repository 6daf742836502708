import type { App } from '../../platform/types.js';
import { Type } from 'typebox';
import { read, write } from '../../platform/context.js';
import { actorOf } from '../../platform/auth.js';
import { Paging, pageOf, setPageHeaders } from '../../platform/http.js';
import { upload } from '../../platform/openapi.js';
import { receiveFile, withUpload } from '../files/files.service.js';
import { authorizeOrganization } from './organizations.policy.js';
import * as S from './organizations.schemas.js';
import * as orgs from './organizations.service.js';
import * as reports from './organizations.reports.js';

const tags = ['Organization'];
const ok = { 200: S.OrganizationSchema };

export default async function organizationRoutes(app: App): Promise<void> {
  const licensing = { trialDays: app.config.trialDays, trialUsers: app.config.trialUsers };

  app.get('/user/organization', { schema: { tags, summary: 'Organization of the current user', response: ok } }, (request) =>
    read(app, request, (ctx) => orgs.loadOrganization(ctx.db, ctx.actor.organizationId, ctx.actor.userId)),
  );

  app.get('/user/organization/counts', { schema: { tags, summary: 'Entity counts', response: { 200: S.CountsSchema } } }, (request) =>
    read(app, request, (ctx) => reports.entityCounts(ctx)),
  );

  app.get(
    '/user/organization/activity',
    { schema: { tags, summary: 'User activity per member over a period', querystring: S.ActivityQuery, response: { 200: Type.Array(S.ActivityRow) } } },
    (request) => read(app, request, (ctx) => reports.userActivity(ctx, request.query)),
  );

  app.get(
    '/user/organizations',
    { schema: { tags, summary: 'All organizations of the user', querystring: Paging(), response: { 200: Type.Array(S.OrganizationListItem) } } },
    async (request, reply) => {
      const page = pageOf(request.query);
      const result = await read(app, request, (ctx) => orgs.listOrganizations(ctx.db, ctx.actor.userId, ctx.actor.organizationId, page));
      setPageHeaders(request, reply, result.total, page);
      return result.items;
    },
  );

  app.post(
    '/user/organizations',
    { schema: { tags, summary: 'Create an organization (the caller owns it and switches to it)', body: S.CreateBody, response: { 201: S.OrganizationSchema } } },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => orgs.createAndSwitch(ctx, request.body.name, licensing))),
  );

  app.patch('/user/organization/name', { schema: { tags, summary: 'Rename the organization', body: S.RenameBody, response: ok } }, (request) =>
    write(app, request, (ctx) => orgs.renameOrganization(ctx, request.body.name)),
  );

  app.patch(
    '/user/organization/avatar',
    { schema: { tags, summary: 'Update the organization avatar (multipart field `file`, an image)', ...upload('file'), response: ok } },
    async (request) => {
      // Refused before the upload is read, so a member cannot make the server store 10 MiB for nothing.
      authorizeOrganization(actorOf(request), 'changeAvatar');
      const received = await receiveFile(request, app.files, { maxBytes: app.config.imageLimitBytes, imageOnly: true });
      return withUpload(app.files, received, () => write(app, request, (ctx) => orgs.changeOrganizationAvatar(ctx, app.files, received)));
    },
  );

  app.patch('/user/organizations/active', { schema: { tags, summary: 'Switch the active organization', body: S.ActiveOrgBody, response: ok } }, (request) =>
    write(app, request, (ctx) => orgs.switchActiveOrganization(ctx, request.body.organizationId)),
  );

  app.patch(
    '/user/organization/owner',
    { schema: { tags, summary: 'Change the owner (the old owner becomes an admin)', body: S.OwnerBody, response: ok } },
    (request) => write(app, request, (ctx) => orgs.changeOwner(ctx, request.body.ownerId)),
  );

  app.patch('/user/organization/ai-enabled', { schema: { tags, summary: 'Turn the AI integration on or off', body: S.AiEnabledBody, response: ok } }, (request) =>
    write(app, request, (ctx) => orgs.setAiEnabled(ctx, request.body.aiEnabled)),
  );

  app.delete(
    '/user/organization/members/:userId',
    { schema: { tags, summary: 'Remove a user from the organization (revokes access at once)', params: S.UserIdParams, response: { 204: Type.Null() } } },
    async (request, reply) => {
      await write(app, request, (ctx) => orgs.removeMember(ctx, request.params.userId));
      return reply.code(204).send(null);
    },
  );

  app.patch(
    '/user/organization/members/:userId/role',
    { schema: { tags, summary: 'Grant or take administrator rights', params: S.UserIdParams, body: S.MemberRoleBody, response: { 200: S.MemberSchema } } },
    (request) => write(app, request, (ctx) => orgs.setMemberRole(ctx, request.params.userId, request.body.role)),
  );

  app.patch(
    '/user/organization/members/:userId/active',
    { schema: { tags, summary: 'Deactivate or reactivate a user', params: S.UserIdParams, body: S.MemberActiveBody, response: { 200: S.MemberSchema } } },
    (request) => write(app, request, (ctx) => orgs.setMemberActive(ctx, request.params.userId, request.body.active)),
  );
}
