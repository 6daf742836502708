import type { App } from '../../../platform/types.js';
import { Type } from 'typebox';
import { read, write } from '../../../platform/context.js';
import { Paging, pageOf, setPageHeaders } from '../../../platform/http.js';
import { SpaceParams } from '../spaces.schemas.js';
import * as S from './members.schemas.js';
import * as members from './members.service.js';
import * as links from './invite-links.service.js';
import * as invitations from '../invitations/invitations.service.js';

const tags = ['Space members'];

export default async function memberRoutes(app: App): Promise<void> {
  app.get(
    '/spaces/:spaceId/members',
    { schema: { tags, summary: 'Members of the space, oldest first', params: SpaceParams, querystring: Paging(), response: { 200: Type.Array(S.SpaceMemberSchema) } } },
    async (request, reply) => {
      const page = pageOf(request.query);
      const result = await read(app, request, (ctx) => members.listMembers(ctx, request.params.spaceId, page));
      setPageHeaders(request, reply, result.total, page);
      return result.items;
    },
  );

  app.post(
    '/spaces/:spaceId/members',
    {
      schema: {
        tags,
        summary:
          'Share the space: organization users (by userIds, or by emails of organization members) are added at once with the role; ' +
          'members already in the space keep their role. Other emails come back in `emailed`: when the service sends email (SMTP_URL), ' +
          'each of them is invited by email with the role (editor, member or reader: 400 for admin), see /spaces/{spaceId}/invitations; ' +
          'without email nothing is sent, and the caller passes on the space invite link, which this call leaves unchanged.',
        params: SpaceParams,
        body: S.ShareBody,
        response: { 201: S.ShareResult },
      },
    },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => invitations.shareAndInvite(ctx, app, request.params.spaceId, request.body))),
  );

  app.delete(
    '/spaces/:spaceId/members/:userId',
    {
      schema: {
        tags,
        summary: 'Remove a member (space admin), or leave the space (own user id); 400 LAST_SPACE_ADMIN for the last admin',
        params: S.MemberParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await write(app, request, (ctx) => members.removeSpaceMember(ctx, request.params.spaceId, request.params.userId));
      return reply.code(204).send(null);
    },
  );

  app.patch(
    '/spaces/:spaceId/members/:userId/role',
    {
      schema: {
        tags,
        summary: "Set a member's role; 400 LAST_SPACE_ADMIN when it would leave the space without an admin",
        params: S.MemberParams,
        body: S.RoleBody,
        response: { 200: S.SpaceMemberSchema },
      },
    },
    (request) => write(app, request, (ctx) => members.setSpaceMemberRole(ctx, request.params.spaceId, request.params.userId, request.body.role)),
  );

  app.post(
    '/spaces/:spaceId/invite-link',
    {
      schema: {
        tags,
        summary: 'Generate the invite link with a role: a new token replaces the old one, which stops working; the new link is enabled',
        params: SpaceParams,
        body: S.InviteRoleBody,
        response: { 201: S.InviteLinkSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => links.generateInviteLink(ctx, request.params.spaceId, request.body.role))),
  );

  app.patch(
    '/spaces/:spaceId/invite-link/enabled',
    { schema: { tags, summary: 'Disable or enable the invite link', params: SpaceParams, body: S.EnabledBody, response: { 200: S.InviteLinkSchema } } },
    (request) => write(app, request, (ctx) => links.setInviteLinkEnabled(ctx, request.params.spaceId, request.body.enabled)),
  );

  app.patch(
    '/spaces/:spaceId/invite-link/role',
    { schema: { tags, summary: 'Change the role the invite link gives (the token stays)', params: SpaceParams, body: S.InviteRoleBody, response: { 200: S.InviteLinkSchema } } },
    (request) => write(app, request, (ctx) => links.setInviteLinkRole(ctx, request.params.spaceId, request.body.role)),
  );

  app.get(
    '/invite-links/:token',
    {
      config: { public: true },
      schema: { tags, summary: 'What an invite link leads to (public: shown before signing in)', params: S.TokenParams, response: { 200: S.JoinDataSchema } },
    },
    (request) => links.inviteLinkData(app.database.db, request.params.token),
  );

  app.post(
    '/invite-links/:token/join',
    {
      schema: {
        tags,
        summary:
          "Join the link's space with its role, and its organization if needed (400 LINK_DISABLED / NO_FREE_SEATS); the active organization stays",
        params: S.TokenParams,
        response: { 201: S.SpaceMemberSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => links.joinByLink(ctx, request.params.token))),
  );
}
