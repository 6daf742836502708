import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { read, unscopedWrite, write } from '../../../platform/context.js';
import { Paging, pageOf, setPageHeaders } from '../../../platform/http.js';
import type { App } from '../../../platform/types.js';
import { signInAddressLimit } from '../../auth/auth.limits.js';
import { SpaceMemberSchema } from '../members/members.schemas.js';
import { SpaceParams } from '../spaces.schemas.js';
import * as S from './invitations.schemas.js';
import * as invitations from './invitations.service.js';
import { acceptInvitation, lookupInvitation, registerByInvitation } from './invitations.accept.js';

const tags = ['Space members'];
const NEEDS_EMAIL = ' 409 EMAIL_NOT_CONFIGURED when the service sends no email (SMTP_URL unset).';
// The token routes carry the link's secret in their path: no access-log line (info) for them.
const QUIET = 'warn' as const;

const clientOf = (request: FastifyRequest) => ({
  ip: request.ip ?? null,
  userAgent: typeof request.headers['user-agent'] === 'string' ? request.headers['user-agent'] : null,
});

export default async function invitationRoutes(app: App): Promise<void> {
  app.get(
    '/spaces/:spaceId/invitations',
    {
      schema: {
        tags,
        summary: 'Open invitations by email of the space (pending or expired), oldest first; space admins',
        params: SpaceParams,
        querystring: Paging(),
        response: { 200: Type.Array(S.InvitationSchema) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query);
      const result = await read(app, request, (ctx) => invitations.listInvitations(ctx, request.params.spaceId, page));
      setPageHeaders(request, reply, result.total, page);
      return result.items;
    },
  );

  app.post(
    '/spaces/:spaceId/invitations',
    {
      schema: {
        tags,
        summary:
          'Invite an address to the space with a role by email: the link to accept works 7 days. An open invitation of the same address is renewed (new link). ' +
          '409 ALREADY_SPACE_MEMBER when its account is in the space.' +
          NEEDS_EMAIL,
        params: SpaceParams,
        body: S.CreateInvitationBody,
        response: { 201: S.InvitationSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => invitations.createInvitation(ctx, app, request.params.spaceId, request.body))),
  );

  app.post(
    '/spaces/:spaceId/invitations/:invitationId/resend',
    {
      schema: {
        tags,
        summary: 'Email the invitation again with a new link (the old one stops working) that works 7 days; 410 INVITATION_REVOKED, 409 INVITATION_ACCEPTED.' + NEEDS_EMAIL,
        params: S.InvitationParams,
        response: { 200: S.InvitationSchema },
      },
    },
    (request) => write(app, request, (ctx) => invitations.resendInvitation(ctx, app, request.params.spaceId, request.params.invitationId)),
  );

  app.delete(
    '/spaces/:spaceId/invitations/:invitationId',
    {
      schema: {
        tags,
        summary: 'Revoke an invitation: its link then answers 410 INVITATION_REVOKED; 409 INVITATION_ACCEPTED once accepted',
        params: S.InvitationParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await write(app, request, (ctx) => invitations.revokeInvitation(ctx, request.params.spaceId, request.params.invitationId));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/invitations/:token',
    {
      config: { public: true },
      logLevel: QUIET,
      schema: {
        tags,
        summary: 'What an emailed invitation link leads to, and its state (public: shown before signing in); 404 for an unknown token',
        security: [],
        params: S.InvitationTokenParams,
        response: { 200: S.InvitationLookupSchema },
      },
    },
    async (request, reply) => reply.header('cache-control', 'no-store').send(await lookupInvitation(app.database.db, request.params.token)),
  );

  app.post(
    '/invitations/:token/accept',
    {
      logLevel: QUIET,
      schema: {
        tags,
        summary:
          "Accept as the signed-in account of the invited address: joins the space with the invitation's role, and its organization if needed " +
          '(the active organization stays). 403 INVITATION_EMAIL_MISMATCH, 410 INVITATION_EXPIRED / INVITATION_REVOKED, 409 INVITATION_ACCEPTED, 400 NO_FREE_SEATS',
        params: S.InvitationTokenParams,
        response: { 201: SpaceMemberSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => acceptInvitation(ctx, request.params.token))),
  );

  app.post(
    '/invitations/:token/register',
    {
      config: { public: true, rateLimit: false },
      onRequest: signInAddressLimit(app),
      logLevel: QUIET,
      schema: {
        tags,
        summary:
          'Accept without an account: creates it with the invited address (verified), the name and password, joins the organization (made active) ' +
          'and the space, and opens a session. 409 EMAIL_TAKEN when the address has an account: sign in and accept instead',
        security: [],
        params: S.InvitationTokenParams,
        body: S.InvitationRegisterBody,
        response: { 201: S.InvitationRegisterResult },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await registerByInvitation(app, (fn) => unscopedWrite(app, request.log, fn), request.params.token, request.body, clientOf(request))),
  );
}
